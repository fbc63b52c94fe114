"""Playing the table page the way a person does: by what is on the screen.

Cards are found by their accessible names and enabled state, bids by "Bid 4" / "Nil", so the
tests also pin the page's accessibility contract.  Nothing here reads the game's hidden state.
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

#: Cards the server lets the player play now (the others are dimmed, ``aria-disabled``).
PLAYABLE = "#hand button.playable"
DIMMED = '#hand button[aria-disabled="true"]'
#: True once the page waits on the player (a playable card, a bid, a choice) or a hand is over.
READY_JS = """() => {
  const open = (id) => document.getElementById(id).open;
  if (open('summary-dialog') || open('over-dialog')) return true;
  return Boolean(document.querySelector('#hand button.playable'));
}"""
SUMMARY_JS = "() => document.getElementById('summary-dialog').open"


def open_game(page: Page, base: str, game_id: str) -> None:
    """Open a game's table page with short animations (``?fast``)."""
    page.goto(f"{base}/play/{game_id}?fast")
    expect(page.locator("#table")).to_be_visible()


def start_from_home(page: Page, base: str, level: str = "Easy") -> str:
    """Home page → "New game" → choose the level → Deal; returns the new game's id."""
    page.goto(f"{base}/?fast")
    page.get_by_role("button", name="New game").click()
    page.get_by_label(level).check()
    page.get_by_role("button", name="Deal").click()
    page.wait_for_url("**/play/*")
    return page.url.rsplit("/", 1)[-1].split("?")[0]


def wait_for_bid(page: Page) -> None:
    expect(page.get_by_role("group", name="Bids")).to_be_visible()


def playable_cards(page: Page) -> Locator:
    return page.locator(PLAYABLE)


def wait_until_ready(page: Page) -> None:
    page.wait_for_function(READY_JS, timeout=45_000)


def summary_open(page: Page) -> bool:
    return bool(page.evaluate(SUMMARY_JS))


#: A point where the card itself is on top (the fan overlaps and tilts the cards), or null.
VISIBLE_POINT_JS = """(card) => {
  const box = card.getBoundingClientRect();
  for (let fy = 0.3; fy <= 0.8; fy += 0.1) {
    for (let fx = 0.05; fx <= 0.95; fx += 0.05) {
      const x = box.left + fx * box.width, y = box.top + fy * box.height;
      const hit = document.elementFromPoint(x, y);
      if (hit && hit.closest('button') === card) return {x, y};
    }
  }
  return null;
}"""


def visible_point(card: Locator) -> tuple[float, float]:
    """Where a person would put the pointer to hit this card in the fan."""
    card.scroll_into_view_if_needed()
    point = card.evaluate(VISIBLE_POINT_JS)
    assert point, f"{card.get_attribute('aria-label')} is hidden under other cards"
    return point["x"], point["y"]


def click_card(card: Locator) -> None:
    """Click a card in the fan where it shows (the next card covers most of it)."""
    expect(card).to_be_enabled()
    x, y = visible_point(card)
    card.page.mouse.click(x, y)


def tap_card(card: Locator) -> None:
    """Tap a card in the fan with a finger."""
    expect(card).to_be_enabled()
    x, y = visible_point(card)
    card.page.touchscreen.tap(x, y)


def play_with_mouse(page: Page, max_cards: int = 13) -> int:
    """Click a playable card whenever it is South's turn; stop at the hand summary.

    Returns how many cards were played.
    """
    played = 0
    while True:
        wait_until_ready(page)
        if summary_open(page) or played == max_cards:
            return played
        click_card(playable_cards(page).first)
        played += 1


def cards_in_hand(page: Page) -> list[str]:
    return [str(b.get_attribute("aria-label")) for b in page.locator("#hand button").all()]
