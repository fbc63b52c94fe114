"""The table page at a table of people, in several browsers at once: the waiting room, the
start, play where each person acts only on their own page, a drop with its countdown and a
computer player standing in, the partner's offer to concede, quick phrases, Play again, and
the page's fit on a laptop and a phone in both themes.

Each browser context is one person (its own session).  The server is this module's own, with
a short drop countdown (``--drop-seconds``) so a test never waits a minute for a takeover;
nothing here asserts how long anything took.  Screenshots go to
``artifacts/screenshots/online-*.jpg``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from harness import DEVICES, Console, Server, by_device, device_options, resize, shot
from online_driver import (
    act_once,
    expect_waiting_room,
    fresh_name,
    join_by_code,
    open_home,
    open_table,
    play_round_robin,
    quick_match,
    say_phrase,
    seat_line,
    sign_up,
    state_as,
    summary_everywhere,
    table_id,
    turn_of,
)
from playwright.sync_api import Browser, BrowserContext, Page, expect
from test_fit import overlap

from conftest import person

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

#: Seconds a dropped person keeps the seat here before a computer player plays for them.
DROP_SECONDS = 6


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("varaq-online")
    srv = Server(root / "games.sqlite3", root / "serve.log",
                 extra_args=("--drop-seconds", str(DROP_SECONDS)))
    srv.start()
    yield srv
    srv.stop()




def signed_up(browser: Browser, console: Console, people: list[BrowserContext], base: str,
              prefix: str, **options: Any) -> tuple[Page, str]:
    page = person(browser, console, people, **options)
    name = fresh_name(prefix)
    sign_up(page, base, name)
    return page, name


def code_of(page: Page) -> str:
    code = page.locator("#waiting-code").inner_text().strip()
    assert re.fullmatch(r"[A-Z0-9]{6}", code), code
    return code


def two_at_a_table(browser: Browser, console: Console, people: list[BrowserContext],
                   base: str, **options: Any) -> tuple[Page, Page, str, str, str]:
    """A host and their partner at a table with bots in the empty seats, started."""
    host, host_name = signed_up(browser, console, people, base, "Host", **options)
    table = open_table(host, level="Easy", fill_bots=True)
    expect_waiting_room(host)
    partner, partner_name = signed_up(browser, console, people, base, "Mate")
    assert join_by_code(partner, code_of(host)) == table
    start = host.get_by_role("button", name="Start", exact=True)
    expect(start).to_be_enabled()
    start.click()
    for page in (host, partner):
        expect(page.locator("#waiting")).to_be_hidden()
        expect(page.locator("#felt")).to_be_visible()
    return host, partner, table, host_name, partner_name


# ---------------------------------------------------------------- a table of four people


def test_four_people_fill_the_waiting_room_start_and_play_a_trick(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    base = server.base
    host, host_name = signed_up(browser, console, people, base, "Host")
    # Two variations changed: a shorter match and no nil; four people needed (no bots).
    table = open_table(host, level="Easy", preset="Varaq",
                       options={"Target": 300, "Nil": False}, fill_bots=False)
    expect_waiting_room(host)
    code = code_of(host)
    expect(host.get_by_label("Link to this table")).to_have_value(f"{base}/join/{code}")
    host.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    host.get_by_role("button", name="Copy link").click()
    expect(host.locator("#copy-status")).to_have_text("Link copied.")
    assert host.evaluate("navigator.clipboard.readText()") == f"{base}/join/{code}"
    start = host.get_by_role("button", name="Start", exact=True)
    expect(start).to_be_disabled()
    expect(host.locator("#waiting-why")).to_have_text("Waiting for 3 more people.")
    expect(host.locator("#waiting-bottom")).to_contain_text("Host")
    badges = host.locator("#waiting-badges")
    expect(badges).to_contain_text("300")
    shot(host, "online-waiting-host-alone")

    # One joins by code, one by the link, and a fourth by code again.
    guest, guest_name = signed_up(browser, console, people, base, "Guest")
    assert join_by_code(guest, code) == table
    expect(host.locator("#waiting-top")).to_contain_text(guest_name)  # live, on the host's page
    linked, linked_name = signed_up(browser, console, people, base, "Linked")
    open_home(linked, base, f"/join/{code}")
    assert table_id(linked) == table
    fourth, fourth_name = signed_up(browser, console, people, base, "Fourth")
    expect(guest.locator("#waiting-why")).to_contain_text("Waiting for 1 more person")
    assert join_by_code(fourth, code) == table
    pages = [host, guest, linked, fourth]
    names = [host_name, guest_name, linked_name, fourth_name]
    for page in pages:
        expect_waiting_room(page)
        felt = page.locator(".waiting-felt")
        for name in names:
            expect(felt).to_contain_text("You" if page is pages[names.index(name)] else name)
        expect(page.locator("#waiting-badges")).to_contain_text("300")
    for page in pages[1:]:
        expect(page.get_by_role("button", name="Start", exact=True)).to_be_hidden()
        expect(page.get_by_role("button", name="Leave table")).to_be_visible()
        expect(page.locator("#waiting-why")).to_have_text(
            re.compile(f"Waiting for {re.escape(host_name)} to start"))
    expect(start).to_be_enabled()
    expect(host.locator("#waiting-why")).to_have_text("Everyone is here.")
    shot(host, "online-waiting-full-host")
    shot(guest, "online-waiting-full-guest")

    start.click()
    for page in pages:
        expect(page.locator("#waiting")).to_be_hidden()
        expect(page.locator("#announcer")).to_contain_text("The match begins.")
        expect(page.locator("#badges")).to_contain_text("300")
        expect(page.locator("#hand button")).to_have_count(13)
    # Each sees the others by name on their seats, the partner across.
    expect(host.locator("#seat-top .seat-name")).to_have_text(guest_name)
    expect(guest.locator("#seat-top .seat-name")).to_have_text(host_name)
    expect(seat_line(host, "top")).to_contain_text("here")
    shot(host, "online-play-four-host")

    # Each bids and plays on their own page, past the bids and the first trick (a whole hand
    # of four people to its summary is the journey's: test_players_journey.py).
    moves = play_round_robin(pages, lambda: host.locator("#last-trick-button").is_enabled())
    assert sum(1 for _, kind in moves if kind == "play") >= 4
    assert {i for i, kind in moves if kind == "bid"} == {0, 1, 2, 3}
    for page in pages:
        expect(page.locator(".seat-bid.pending")).to_have_count(0)
    shot(guest, "online-play-four-guest-after-a-trick")


# ---------------------------------------------------------------- two people and bots


def test_two_people_with_bots_start_and_play_a_hand(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    host, host_name = signed_up(browser, console, people, server.base, "Host")
    table = open_table(host, level="Easy", fill_bots=True, timer="60 s")
    expect_waiting_room(host)
    expect(host.get_by_role("button", name="Start", exact=True)).to_be_disabled()
    expect(host.locator("#waiting-why")).to_have_text("Waiting for 1 more person.")
    partner, partner_name = signed_up(browser, console, people, server.base, "Mate")
    code = code_of(host)
    join_by_code(partner, code)
    expect(host.locator("#waiting-why")).to_have_text("Computer players take the empty seats.")
    # Leave, and come back with the code: the host's page follows both.
    partner.get_by_role("button", name="Leave table").click()
    expect(partner.get_by_role("button", name="Open a table")).to_be_visible()
    expect(host.locator("#waiting-why")).to_have_text("Waiting for 1 more person.")
    expect(host.locator("#waiting-top")).to_contain_text("Open seat")
    join_by_code(partner, code)
    expect(host.locator("#waiting-why")).to_have_text("Computer players take the empty seats.")
    expect(partner.locator("#waiting-why")).to_contain_text("computer players take the empty seats")
    host.get_by_role("button", name="Start", exact=True).click()
    for page in (host, partner):
        expect(page.locator("#hand button")).to_have_count(13)
        # The opponents are computer players, and say so.
        expect(seat_line(page, "left")).to_contain_text("computer")
    expect(host.locator("#seat-top .seat-name")).to_have_text(partner_name)
    # The turn timer counts down on the seat whose turn it is (a person's).
    pages = [host, partner]
    play_round_robin(pages, lambda: any(turn_of(p) in ("bid", "play") for p in pages),
                     acting=[])
    turn_page = next(p for p in pages if turn_of(p) in ("bid", "play"))
    expect(seat_line(turn_page, "bottom")).to_have_attribute("data-state", "timer")
    expect(seat_line(turn_page, "bottom")).to_have_text(re.compile(r"^Turn timer: \d+ s$"))
    shot(turn_page, "online-two-people-timer")
    play_round_robin(pages, summary_everywhere(pages))
    for page in pages:
        expect(page.locator("#summary-ready")).to_contain_text("next hand is dealt in")
    shot(partner, "online-two-people-summary")
    # Ready, one by one: the other person sees who is (the computer players need no asking).
    host.locator("#summary-dialog").get_by_role("button", name="Next hand").click()
    expect(partner.locator("#summary-ready")).to_contain_text(re.compile(
        f"Ready: {re.escape(host_name)}"))
    expect(host.locator("#next-hand")).to_have_text("Ready")
    expect(host.locator("#summary-dialog")).to_be_visible()
    partner.locator("#summary-dialog").get_by_role("button", name="Next hand").click()
    for page in pages:
        expect(page.locator("#summary-dialog")).to_be_hidden()
        expect(page.locator("#hand button")).to_have_count(13)
    assert state_as(host, server.base, table)["view"]["hand_no"] == 2


def test_a_quick_match_of_four_plays_past_the_bids(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    pages = [signed_up(browser, console, people, server.base, "Quick")[0] for _ in range(4)]
    for page in pages:
        quick_match(page, "People only")
    tables = {table_id(page) for page in pages}
    assert len(tables) == 1
    for page in pages:
        expect(page.locator("#waiting")).to_be_hidden()
        expect(page.locator("#hand button")).to_have_count(13)
    host = pages[0]
    # Past the bids and one trick: Last trick opens up.
    play_round_robin(pages, lambda: host.locator("#last-trick-button").is_enabled())
    for page in pages:
        expect(page.locator(".seat-bid.pending")).to_have_count(0)  # all four have bid
    shot(pages[1], "online-quick-match-after-a-trick")


# ---------------------------------------------------------------- a drop and a comeback


def test_a_player_who_closes_the_page_is_replaced_and_comes_back(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    console.allow(r"WebSocket")  # the closed page's socket, as Chromium reports it
    host, partner, table, _, partner_name = two_at_a_table(
        browser, console, people, server.base)
    pages = [host, partner]
    # Everyone bids first.
    play_round_robin(pages, lambda: state_as(host, server.base, table)["view"]["phase"] == "play")
    context = partner.context
    partner.close()
    # The host sees the partner reconnecting, with a countdown, then a computer player for them.
    line = seat_line(host, "top")
    expect(line).to_contain_text(re.compile(r"reconnecting \d+ s"))
    shot(host, "online-drop-countdown")
    expect(line).to_contain_text("computer playing", timeout=30_000)
    # The host plays on; a computer player plays the partner's cards, each marked.
    announced = host.locator("#announcer")
    play_round_robin([host], lambda: "Played for" in announced.inner_text())
    expect(announced).to_contain_text(f"Played for {partner_name} by a computer player")
    shot(host, "online-drop-computer-playing")
    # That card carries a robot: on the table, or in the last trick once it is gathered.
    if not host.locator("#trick .auto-mark").count():
        host.get_by_role("button", name="Last trick").click()
        last = host.get_by_role("dialog", name="Last trick")
        expect(last).to_contain_text("played by a computer player")
        shot(host, "online-drop-last-trick")
        last.get_by_role("button", name="Close").click()
    # Back: the partner opens the table again and plays at their next turn.
    partner = context.new_page()
    partner.goto(f"{server.base}/play/{table}?fast")
    expect(partner.locator("#felt")).to_be_visible()
    expect(seat_line(host, "top")).to_contain_text("here")
    # Both act on their own pages until the partner has played a card again.
    played: list[str] = []
    pages = [host, partner]

    def partner_played() -> bool:
        if act_once(partner) == "play":
            played.append("play")
        return bool(played)

    play_round_robin(pages, partner_played, acting=[host])
    expect(seat_line(host, "top")).to_contain_text("here")
    shot(partner, "online-drop-back")


def test_the_host_leaves_an_absent_seat_open_someone_takes_it_and_the_first_watches(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    console.allow(r"WebSocket")
    host, partner, table, _, partner_name = two_at_a_table(
        browser, console, people, server.base)
    context = partner.context
    partner.close()
    line = seat_line(host, "top")
    expect(line).to_contain_text("reconnecting")
    host.get_by_role("button", name="Seat options: North").click()
    dialog = host.get_by_role("dialog", name="North's seat")
    expect(dialog).to_contain_text(f"{partner_name} is away")
    expect(dialog.get_by_role("button", name="Give seat to a computer player")).to_be_visible()
    shot(host, "online-seat-options")
    dialog.get_by_role("button", name="Leave seat open").click()
    expect(line).to_have_attribute("data-state", "open")
    expect(host.locator("#announcer")).to_contain_text(f"{partner_name} left; the seat is open.")

    # Someone new takes the open seat with the code, during the match.
    code = state_as(host, server.base, table)["table"]["code"]
    newcomer, newcomer_name = signed_up(browser, console, people, server.base, "New")
    assert join_by_code(newcomer, code) == table
    expect(host.locator("#seat-top .seat-name")).to_have_text(newcomer_name)
    expect(line).to_contain_text("here")
    # The keyboard reaches the phrases: open the menu, go down two, say it.
    newcomer.get_by_role("button", name="Phrases").focus()
    newcomer.keyboard.press("Enter")
    expect(newcomer.get_by_role("menuitem", name="Hello!")).to_be_focused()
    newcomer.keyboard.press("ArrowDown")
    newcomer.keyboard.press("ArrowDown")
    expect(newcomer.get_by_role("menuitem", name="Nice play")).to_be_focused()
    newcomer.keyboard.press("Enter")
    expect(host.locator("#seat-top .seat-bubble")).to_have_text("Nice play")
    expect(newcomer.get_by_role("menu", name="Phrases")).to_be_hidden()

    # The first partner, back, has no seat: they watch a table they cannot touch.
    watcher = context.new_page()
    watcher.goto(f"{server.base}/play/{table}?fast")
    expect(watcher.locator("#watch-note")).to_have_text("You are watching this table.")
    expect(watcher.locator("#hand")).to_be_hidden()
    for button in ("Concede", "Phrases", "Hint"):
        expect(watcher.get_by_role("button", name=button)).to_be_hidden()
    expect(watcher.locator("#status")).not_to_contain_text("Your")
    expect(watcher.locator("#seat-top .seat-name")).to_have_text(newcomer_name)
    shot(watcher, "online-watcher")

    # The newcomer goes too; this time the host gives the seat to a computer player for good.
    newcomer.close()
    expect(line).to_contain_text("reconnecting")
    host.get_by_role("button", name="Seat options: North").click()
    host.get_by_role("dialog", name="North's seat").get_by_role(
        "button", name="Give seat to a computer player").click()
    expect(line).to_have_attribute("data-state", "bot")
    expect(host.locator("#seat-top .seat-name")).to_have_text("North")
    expect(host.locator("#announcer")).to_contain_text(
        f"{newcomer_name}'s seat went to a computer player.")
    expect(watcher.locator("#seat-top .seat-line")).to_have_attribute("data-state", "bot")


# ---------------------------------------------------------------- concede, phrases, again


def test_concede_offer_phrases_and_play_again(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    host, partner, table, host_name, partner_name = two_at_a_table(
        browser, console, people, server.base)
    # A phrase: a bubble by the speaker's seat on the other page, and the live region.
    say_phrase(host, "Good game")
    expect(partner.locator("#seat-top .seat-bubble")).to_have_text("Good game")
    expect(partner.locator("#announcer")).to_contain_text(f"{host_name}: Good game")
    shot(partner, "online-phrase-bubble")

    # The host offers to concede; the partner declines.
    host.get_by_role("button", name="Concede").click()
    concede = host.get_by_role("dialog", name="Concede the match?")
    expect(concede).to_contain_text(f"{partner_name} must agree")
    concede.get_by_role("button", name="Concede").click()
    expect(host.locator("#toast")).to_contain_text("Offered to your partner")
    expect(host.locator("#status")).to_contain_text("Offered to your partner")
    offer = partner.get_by_role("dialog", name="Your partner offers to concede the match")
    expect(offer).to_be_visible()
    shot(partner, "online-concede-offer")
    offer.get_by_role("button", name="Decline").click()
    expect(offer).to_be_hidden()
    expect(host.locator("#toast")).to_contain_text(f"{partner_name} declined")
    assert state_as(host, server.base, table)["status"] == "playing"

    # Now the partner offers, and the host agrees: the match is over for both.
    partner.get_by_role("button", name="Concede").click()
    partner.get_by_role("dialog", name="Concede the match?").get_by_role(
        "button", name="Concede").click()
    offer = host.get_by_role("dialog", name="Your partner offers to concede the match")
    offer.get_by_role("button", name="Concede").click()
    for page in (host, partner):
        over = page.get_by_role("dialog", name=re.compile("conceded"))
        expect(over).to_be_visible()
        expect(over.get_by_role("button", name="Play again")).to_be_visible()
        expect(over.get_by_role("button", name="New game")).to_be_hidden()
    # The partner's offer ended with the match: no word of a refusal.
    expect(partner.locator("#toast")).not_to_contain_text("declined")
    shot(host, "online-over-play-again")

    # Play again: the host's page goes to the new table; the partner is offered to follow.
    host.get_by_role("button", name="Play again").click()
    new = table_id_after(host, table)
    follow = partner.get_by_role("button", name="Go to the new match")
    expect(follow).to_be_visible()
    expect(partner.locator("#over-again-note")).to_contain_text("A new match is ready")
    shot(partner, "online-again-offered")
    follow.click()
    assert table_id_after(partner, table) == new
    for page in (host, partner):
        expect(page.locator("#hand button")).to_have_count(13)
        assert state_as(page, server.base, new)["status"] == "playing"


def table_id_after(page: Page, old: str) -> str:
    """The table the page moved to from ``old``."""
    page.wait_for_url(lambda url: "/play/" in url and old not in url)
    return table_id(page)


# ---------------------------------------------------------------- fit and looks

#: The boxes the player needs at a table of people, and the waiting room's.
BOXES_JS = """() => {
  const shown = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  const all = (sel) => [...document.querySelectorAll(sel)].filter(shown).map((e) => {
    const r = e.getBoundingClientRect();
    return {name: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30) || e.id,
            x: r.left, y: r.top, right: r.right, bottom: r.bottom};
  });
  return {
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    window: [innerWidth, innerHeight],
    waiting: all('#waiting, #waiting .w-seat, #waiting button, #waiting .code, #waiting input'),
    seats: all('.felt .seat'),
    trick: all('#trick'),
    cards: all('#hand .card'),
    bid: all('#bid-panel'),
    controls: all('.controls > button, .controls > .button, .more-menu > *, '
                  + '.topbar button, .topbar select'),
  };
}"""


def check_fit(page: Page, where: str, *, waiting: bool) -> None:
    boxes = page.evaluate(BOXES_JS)
    width, height = boxes["window"]
    where = f"{width}x{height} {where}"
    assert boxes["scroll"][0] <= width and boxes["scroll"][1] <= height, (where, boxes["scroll"])
    inside = boxes["waiting"] if waiting else [
        b for key in ("seats", "trick", "cards", "bid", "controls") for b in boxes[key]]
    if waiting:
        seats = [b for b in inside if b["name"].startswith(("North", "East", "South", "West"))]
        assert len(seats) == 4, (where, inside)
    else:
        assert len(boxes["seats"]) == 4 and len(boxes["cards"]) == 13, where
    for b in inside:
        assert b["x"] >= -0.5 and b["y"] >= -0.5, (where, b)
        assert b["right"] <= width + 0.5 and b["bottom"] <= height + 0.5, (where, b)
    if waiting:
        return
    visible_controls = [c for c in boxes["controls"] if c["right"] > c["x"]]
    apart = [
        *[(a, b) for i, a in enumerate(boxes["seats"]) for b in boxes["seats"][i + 1:]],
        *[(s, t) for s in boxes["seats"] for t in boxes["trick"]],
        *[(p, s) for p in boxes["bid"] for s in boxes["seats"]],
        *[(c, o) for c in boxes["cards"]
          for o in boxes["seats"] + boxes["trick"] + boxes["bid"] + visible_controls],
        *[(a, b) for i, a in enumerate(visible_controls) for b in visible_controls[i + 1:]],
    ]
    for a, b in apart:
        assert not overlap(a, b), (where, a, b)


#: test_fit.py's window sizes: laptops, big screens, phones upright and on their side.
SIZES = [(1366, 657), (360, 640), (1280, 720), (1440, 900), (1920, 1080), (390, 844), (844, 390)]


@pytest.mark.parametrize("device", DEVICES)
def test_the_waiting_room_and_the_online_table_fit(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    device: str,
) -> None:
    """At each size of the kind of device (``harness.by_device``: one table, the window
    resized or the phone turned), in both themes."""
    sizes = by_device(SIZES)[device]
    host, _ = signed_up(browser, console, people, server.base, "Fit",
                        **device_options(device, sizes))
    open_table(host, level="Easy", fill_bots=True, timer="30 s")
    expect_waiting_room(host)
    partner, _ = signed_up(browser, console, people, server.base, "Mate")
    join_by_code(partner, code_of(host))
    expect(host.get_by_role("button", name="Start", exact=True)).to_be_enabled()
    for width, height in sizes:
        resize(host, width, height)
        for theme in ("light", "dark"):
            host.emulate_media(color_scheme=theme)
            shot(host, f"online-fit-{width}x{height}-waiting-{theme}")
            check_fit(host, f"{width}x{height} waiting {theme}", waiting=True)
    host.get_by_role("button", name="Start", exact=True).click()
    expect(host.locator("#hand button")).to_have_count(13)
    pages = [host, partner]
    # Bid until it is the host's turn to bid or play (the partner acts on their own page).
    play_round_robin(pages, lambda: turn_of(host) in ("bid", "play"), acting=[partner])
    say_phrase(partner, "Hello!")
    expect(host.locator("#seat-top .seat-bubble")).to_have_text("Hello!")
    host.mouse.move(0, 0)
    for width, height in sizes:
        label = f"{width}x{height}"
        resize(host, width, height)
        for theme in ("light", "dark"):
            host.emulate_media(color_scheme=theme)
            shot(host, f"online-fit-{label}-play-{theme}")
            check_fit(host, f"{label} play {theme}", waiting=False)
        # The Phrases menu opens inside the window, and Escape closes it.
        host.get_by_role("button", name="Phrases").click()
        menu = host.get_by_role("menu", name="Phrases")
        expect(menu.get_by_role("menuitem")).to_have_count(8)
        box = menu.bounding_box()
        assert box and box["x"] >= 0 and box["y"] >= 0, (label, box)
        assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, (
            label, box)
        shot(host, f"online-fit-{label}-phrases")
        host.keyboard.press("Escape")
        expect(menu).to_be_hidden()
        expect(host.get_by_role("button", name="Phrases")).to_be_focused()
