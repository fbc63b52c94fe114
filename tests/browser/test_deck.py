"""How the cards look: the four-colour deck, larger cards on phones, and the card backs.

The player chooses in the table's "Cards" dialog; the choices are remembered in localStorage
and drawn on every page that shows cards (the table, the daily, the lessons, the reviews).
Larger cards must still leave the whole table on a 360×640 phone (the fit test's own check).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from harness import Console, Server, shot
from playwright.sync_api import Browser, Page, expect
from table_driver import open_game, wait_for_bid
from test_fit import check_fit

pytestmark = pytest.mark.browser

#: Each suit's colour on the cards of the hand, and the card face's own colour.
COLOURS_JS = """() => {
  const colours = {};
  for (const card of document.querySelectorAll('#hand .card.face')) {
    const suit = [...card.classList].find((c) => c.startsWith('suit-'));
    if (card.dataset.card.endsWith('J')) continue;  // jokers keep their own colours
    colours[suit.slice(5)] = getComputedStyle(card).color;
  }
  // --card is written light-dark(day, night): an element painted with it gives the colour
  const probe = document.createElement('span');
  probe.style.backgroundColor = 'var(--card)';
  document.body.append(probe);
  const face = getComputedStyle(probe).backgroundColor;
  probe.remove();
  return {colours, face};
}"""

RED = "rgb(200, 16, 46)"
BLACK = "rgb(27, 27, 31)"
BLUE = "rgb(21, 70, 184)"
GREEN = "rgb(11, 107, 46)"


def rgb(text: str) -> tuple[int, int, int]:
    text = text.strip()
    if text.startswith("#"):
        return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
    r, g, b = (int(n) for n in re.findall(r"\d+", text)[:3])
    return r, g, b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """The WCAG contrast ratio of two colours."""
    def luminance(c: tuple[int, int, int]) -> float:
        parts = [v / 255 for v in c]
        lin = [p / 12.92 if p <= 0.03928 else ((p + 0.055) / 1.055) ** 2.4 for p in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def suit_colours(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(COLOURS_JS)
    return found


def test_the_cards_dialog_changes_the_deck_and_remembers_it(page: Page, server: Server) -> None:
    game_id = server.new_game(level="easy", rules="varaq", seed=7)
    open_game(page, server.base, game_id)
    wait_for_bid(page)
    before = suit_colours(page)["colours"]
    assert len(before) >= 2, before
    for suit, colour in before.items():
        assert colour == (RED if suit in "HD" else BLACK), before

    page.get_by_role("button", name="Card settings").click()
    dialog = page.get_by_role("dialog", name="Cards")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Lattice")).to_be_checked()
    dialog.get_by_label("Four-colour deck").check()
    dialog.get_by_label("Spades").check()
    dialog.get_by_role("button", name="Done").click()
    expect(dialog).to_be_hidden()

    after = suit_colours(page)["colours"]
    for suit, colour in after.items():
        assert colour == {"S": BLACK, "H": RED, "D": BLUE, "C": GREEN}[suit], after
    back = page.locator(".seat-backs .card.back").first
    assert "svg" in back.evaluate("(b) => getComputedStyle(b).backgroundImage")
    stored = page.evaluate("({deck: localStorage.getItem('varaq-deck'),"
                           " back: localStorage.getItem('varaq-card-back')})")
    assert stored == {"deck": "four", "back": "spades"}

    # Remembered: a new visit draws the same deck, and the dialog shows the choices.
    page.reload()
    wait_for_bid(page)
    assert suit_colours(page)["colours"] == after
    page.get_by_role("button", name="Card settings").click()
    expect(dialog.get_by_label("Four-colour deck")).to_be_checked()
    expect(dialog.get_by_label("Spades")).to_be_checked()
    dialog.get_by_label("Four-colour deck").uncheck()
    dialog.get_by_role("button", name="Done").click()
    assert suit_colours(page)["colours"] == before
    assert page.evaluate("document.documentElement.dataset.deck") is None


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_four_colours_read_well_in_both_themes(browser: Browser, server: Server,
                                               theme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860}, color_scheme=theme)
    context.add_init_script("localStorage.setItem('varaq-deck', 'four');")
    try:
        page = context.new_page()
        open_game(page, server.base, server.new_game(level="easy", rules="varaq", seed=11))
        wait_for_bid(page)
        found = suit_colours(page)
        face = rgb(found["face"])
        for ink in (RED, BLACK, BLUE, GREEN):
            assert contrast(rgb(ink), face) >= 4.5, (theme, ink, found["face"])
        for suit, colour in found["colours"].items():
            assert colour == {"S": BLACK, "H": RED, "D": BLUE, "C": GREEN}[suit], found
        shot(page, f"deck-four-colour-{theme}")
    finally:
        context.close()


def test_every_card_page_draws_the_chosen_deck(browser: Browser, server: Server) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.add_init_script("localStorage.setItem('varaq-deck', 'four');"
                            "localStorage.setItem('varaq-card-back', 'ripples');")
    try:
        page = context.new_page()
        for path in ("/", "/daily", "/learn", "/review"):
            page.goto(f"{server.base}{path}")
            page.wait_for_function("() => document.documentElement.dataset.back")
            root = page.evaluate("({deck: document.documentElement.dataset.deck,"
                                 " back: document.documentElement.dataset.back})")
            assert root == {"deck": "four", "back": "ripples"}, path
            assert page.locator('link[href*="deck.css"]').count() == 1, path
    finally:
        context.close()


def hand_card_width(browser: Browser, server: Server, large: bool, game_id: str,
                    console: Console) -> float:
    context = browser.new_context(viewport={"width": 360, "height": 640}, has_touch=True,
                                  is_mobile=True, device_scale_factor=2)
    if large:
        context.add_init_script("localStorage.setItem('varaq-card-size', 'large');")
    page = context.new_page()
    page.on("console", lambda m: console.errors.append(m.text) if m.type == "error" else None)
    try:
        open_game(page, server.base, game_id)
        wait_for_bid(page)
        page.wait_for_timeout(400)  # cards that slide in have landed
        width: float = page.locator("#hand .card").first.bounding_box()["width"]  # type: ignore[index]
        if large:
            for theme in ("light", "dark"):
                page.emulate_media(color_scheme=theme)
                check_fit(page, "bid")
                shot(page, f"deck-large-360x640-{theme}")
        return width
    finally:
        context.close()


def test_larger_cards_still_fit_a_small_phone(browser: Browser, server: Server,
                                             console: Console) -> None:
    game_id = server.new_game(level="easy", rules="varaq", seed=360)
    normal = hand_card_width(browser, server, False, game_id, console)
    large = hand_card_width(browser, server, True, game_id, console)
    assert large >= normal * 1.1, (normal, large)
    assert not console.unexpected(), console.unexpected()
