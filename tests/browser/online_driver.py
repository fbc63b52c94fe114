"""Online play the way a person does it on the home page: by labels, buttons and links.

Each browser context is one person (its own cookie jar).  The helpers type into the account
box, the "Open a table" dialog, the "Table code" field and the quick-match controls exactly as
a player would, and wait for what the page shows next; nothing here calls the API for them
except :func:`state_as`, which reads a table with the person's own session to check a result.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page, WebSocket, expect

PASSWORD = "correct horse battery"
#: The table page's address, with the table's id as the group.
PLAY_URL = re.compile(r"/play/([A-Za-z0-9_-]+)(\?.*)?$")

_names = itertools.count(1)


def fresh_name(prefix: str = "Player") -> str:
    """A name nobody on the test server has (2 to 24 characters)."""
    return f"{prefix[:12]}{next(_names)}{secrets.token_hex(2)}"


def open_home(page: Page, base: str, path: str = "/") -> None:
    """Open the home page (short animations) and wait until the account box knows who is here."""
    page.goto(f"{base}{path}{'&' if '?' in path else '?'}fast")
    page.wait_for_selector("body[data-signed-in]", state="attached")


def account_form(page: Page, name: str) -> Locator:
    """The "Sign in" or the "New account" form of the account box."""
    return page.get_by_role("form", name=name)


def sign_up(page: Page, base: str | None, name: str, password: str = PASSWORD) -> None:
    """Create an account in the home page's form (``base``: open the home page first)."""
    if base is not None:
        open_home(page, base)
    form = account_form(page, "New account")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password").fill(password)
    form.get_by_role("button", name="Create account").click()
    expect_signed_in(page, name)


def expect_signed_in(page: Page, name: str) -> None:
    """The account box shows ``name`` signed in (a sign-up or sign-in hashes a password on
    purpose slowly, and more slowly on a loaded two-core machine: up to 20 s)."""
    expect(page.get_by_role("button", name="Sign out")).to_be_visible(timeout=20_000)
    expect(page.locator("#profile-name")).to_have_text(name)


def sign_in(page: Page, name: str, password: str = PASSWORD) -> None:
    """Fill the "Sign in" form and send it (a refusal shows beside the form)."""
    form = account_form(page, "Sign in")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password").fill(password)
    form.get_by_role("button", name="Sign in").click()


def sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(account_form(page, "Sign in")).to_be_visible()


def table_id(page: Page) -> str:
    """The id of the table whose page is open (waits for the address to change)."""
    page.wait_for_url(PLAY_URL)
    match = PLAY_URL.search(page.url)
    assert match, page.url
    return match.group(1)


def open_table(
    page: Page, *, level: str = "Normal", preset: str | None = None,
    options: dict[str, Any] | None = None, fill_bots: bool = True, timer: str = "Off",
    public: bool = False,
) -> str:
    """Home page → "Open a table" → the dialog's choices → open it; the new table's id.

    ``options``: custom rules by their labels, a bool for a switch (``{"Nil": False}``) and a
    number for a field (``{"Target": 300}``).  ``public``: listed under Live tables.
    """
    page.get_by_role("button", name="Open a table").click()
    dialog = page.get_by_role("dialog", name="Open a table")
    expect(dialog).to_be_visible()
    dialog.get_by_label(level, exact=True).check()
    if preset:
        dialog.get_by_label("Preset").select_option(label=preset)
    if options:
        dialog.get_by_label("Custom table").check()
        for label, value in options.items():
            field = dialog.get_by_label(label, exact=True)
            if isinstance(value, bool):
                field.set_checked(value)
            else:
                field.fill(str(value))
    dialog.get_by_label("Fill empty seats with bots").set_checked(fill_bots)
    dialog.get_by_label("Turn timer").select_option(label=timer)
    if public:
        dialog.get_by_label("Public (listed under Live tables)").check()
    dialog.get_by_role("button", name="Open the table").click()
    return table_id(page)


def join_by_code(page: Page, code: str) -> str:
    """Type a table's code on the home page and join; the table's id.

    A refusal fails at once with the page's own words (the code typed, and what the home page
    said), not after a wait for a table page that will never come."""
    field = page.get_by_label("Table code")
    field.fill(code)
    page.get_by_role("button", name="Join table").click()
    page.wait_for_function(
        "() => location.pathname.startsWith('/play/')"
        " || !document.getElementById('lobby-error').hidden")
    error = page.locator("#lobby-error")
    assert not error.is_visible(), (
        f"joining {code!r} (field: {field.input_value()!r}): {error.inner_text()}")
    return table_id(page)


def quick_match(page: Page, who: str = "People only") -> None:
    """Choose who may sit and press "Quick match"; the waiting panel shows."""
    page.get_by_label("Who may sit").select_option(label=who)
    page.get_by_role("button", name="Quick match").click()
    expect(page.get_by_role("button", name="Leave queue")).to_be_visible()


def state_as(page: Page, base: str, game_id: str) -> dict[str, Any]:
    """``GET /api/games/{id}`` with this person's session (their seat's view)."""
    answer = page.request.get(f"{base}/api/games/{game_id}")
    assert answer.ok, answer.text()
    state: dict[str, Any] = answer.json()
    return state


@dataclass(frozen=True, slots=True)
class Frame:
    """One WebSocket message a page received: the socket's address and the decoded JSON."""

    url: str
    doc: Any


def record_frames(page: Page) -> list[Frame]:
    """Every WebSocket message this page receives from now on, in order (a list that grows).

    Call it before the page opens the socket: the secrecy checks want every frame, the
    first state included.  A frame that is not JSON is kept as its text.
    """
    frames: list[Frame] = []

    def on_socket(ws: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            text = payload.decode() if isinstance(payload, bytes) else payload
            try:
                frames.append(Frame(ws.url, json.loads(text)))
            except ValueError:
                frames.append(Frame(ws.url, text))

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return frames


# ---------------------------------------------------------------- at the table of people

#: What the table page waits on this person for: "summary", "over", "blind", "bid", "play"
#: or "" (someone else's turn, or the page is still showing the last moves).
TURN_JS = """() => {
  const open = (id) => document.getElementById(id).open;
  if (open('over-dialog')) return 'over';
  if (open('summary-dialog')) return 'summary';
  const enabled = (sel) => [...document.querySelectorAll(sel)].some((b) => !b.disabled);
  if (!document.getElementById('blind-panel').hidden && enabled('#blind-panel button')) {
    return 'blind';
  }
  if (!document.getElementById('bid-panel').hidden && enabled('#bid-grid button')) return 'bid';
  if (document.querySelector('#hand button.playable')) return 'play';
  return '';
}"""


def turn_of(page: Page) -> str:
    """What this person's page asks of them now (see ``TURN_JS``)."""
    answer: str = page.evaluate(TURN_JS)
    return answer


def expect_waiting_room(page: Page) -> None:
    room = page.get_by_role("region", name=re.compile(r"Private table|Public table|Quick match"))
    expect(room).to_be_visible()


def bid_something(page: Page) -> None:
    """Bid 3 when open to them, else the first bid they may make (never nil)."""
    for n in (3, 2, 4, 1, 5, 6):
        button = page.get_by_role("button", name=f"Bid {n}", exact=True)
        if button.is_visible() and button.is_enabled():
            button.click(timeout=3000)
            return
    page.locator("#bid-grid button:not([disabled])").first.click(timeout=3000)


def act_once(page: Page) -> str:
    """Do what this person's page waits for (look at the cards, bid, play a card); what it was.

    Between reading the page and clicking, the page may have moved on (its own move is
    showing): then nothing happens and the next round tries again.
    """
    from table_driver import visible_point

    turn = turn_of(page)
    try:
        if turn == "blind":
            page.get_by_role("button", name="Look at cards").click(timeout=3000)
        elif turn == "bid":
            bid_something(page)
        elif turn == "play":
            card = page.locator("#hand button.playable").first
            x, y = visible_point(card)
            page.mouse.click(x, y)
        else:
            return turn
    except PlaywrightError:
        return ""
    return turn


def play_round_robin(
    pages: list[Page], until: Callable[[], bool], *, seconds: float = 180,
    acting: list[Page] | None = None,
) -> list[tuple[int, str]]:
    """Each person acts on their own page when it is their turn, until ``until()`` holds; the
    moves made, as (index in ``pages``, kind).  ``seconds`` is a safety net, not a measure."""
    moves: list[tuple[int, str]] = []
    deadline = time.monotonic() + seconds
    actors = acting if acting is not None else pages
    while not until():
        assert time.monotonic() < deadline, f"the table did not get there; moves: {moves}"
        acted = False
        for i, page in enumerate(pages):
            if page not in actors or page.is_closed():
                continue
            kind = act_once(page)
            if kind in ("blind", "bid", "play"):
                moves.append((i, kind))
                acted = True
        if not acted:
            pages[0].wait_for_timeout(120)
    return moves


def summary_everywhere(pages: list[Page]) -> Callable[[], bool]:
    """A condition: every page shows the hand's summary (or the end of the match)."""
    return lambda: all(turn_of(p) in ("summary", "over") for p in pages)


def seat_line(page: Page, place: str) -> Locator:
    """The line under a seat's plate (here, reconnecting, a computer player, the timer)."""
    return page.locator(f"#seat-{place} .seat-line")


def say_phrase(page: Page, text: str) -> None:
    page.get_by_role("button", name="Phrases").click()
    page.get_by_role("menuitem", name=text).click()
