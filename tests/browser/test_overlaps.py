"""Nothing the player reads covers anything else, at every window size of the fit test.

Issue 18 found a three-line hint squeezing the felt until the partner's cards were cut off,
the "You must follow …" note over the status line on a laptop, the blind nil panel over the
side seats' plates and a partner's name cut to "Hana 71…".  At each size of test_fit.py (one
table a kind of device, the window resized or the phone turned: ``harness.by_device``):

* at a single-player table, with a hint shown and the note of a dimmed card tapped, the status
  line, the hint, the note, the felt and the partner's cards keep apart, and the seats' plates
  and the partner's cards lie wholly on the felt;
* at a table where South may bid blind nil, the blind nil panel covers no seat's plate;
* at a table of people with long names, no name on the seats or the score bar is cut
  (its ``scrollWidth`` is not above its ``clientWidth``).
"""

from __future__ import annotations

from typing import Any

import pytest
from harness import DEVICES, Console, Server, by_device, device_options, resize, shot
from online_driver import expect_waiting_room, join_by_code, open_table, sign_up
from playwright.sync_api import Browser, BrowserContext, Page, expect
from table_driver import open_game, wait_for_bid, wait_until_ready
from test_fit import SIZES, overlap

from conftest import person

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

#: The boxes of the table's named parts (null when not shown), and every name's widths.
PARTS_JS = """() => {
  const box = (e, name) => {
    if (!e || !e.checkVisibility({visibilityProperty: true})) return null;
    const r = e.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return null;
    return {name, x: r.left, y: r.top, right: r.right, bottom: r.bottom};
  };
  const one = (sel) => box(document.querySelector(sel), sel);
  const all = (sel) => [...document.querySelectorAll(sel)]
    .map((e) => box(e, `${sel} ${e.closest('.seat') ? e.closest('.seat').id : ''}`))
    .filter(Boolean);
  return {
    felt: one('#felt'), status: one('#status'), hint: one('#status .hint-text'),
    note: one('#card-note'), partner: one('#seat-top .seat-backs'), blind: one('#blind-panel'),
    plates: all('#felt .seat-plate'),
    names: [...document.querySelectorAll('.seat-name, .side-name')]
      .filter((e) => e.checkVisibility() && e.clientWidth > 0)
      .map((e) => ({text: e.textContent, scroll: e.scrollWidth, client: e.clientWidth})),
  };
}"""


def parts(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(PARTS_JS)
    return found


def inside(inner: dict[str, Any], outer: dict[str, Any]) -> bool:
    """True when ``inner`` lies within ``outer`` (to a hairline)."""
    return (inner["x"] >= outer["x"] - 1 and inner["y"] >= outer["y"] - 1
            and inner["right"] <= outer["right"] + 1 and inner["bottom"] <= outer["bottom"] + 1)


def table_page(browser: Browser, console: Console, people: list[BrowserContext],
               device: str) -> tuple[Page, list[tuple[int, int]]]:
    """A page for ``device`` ("desktop" or "phone") and the sizes it is turned through."""
    sizes = by_device(SIZES)[device]
    return person(browser, console, people, **device_options(device, sizes)), sizes


@pytest.mark.parametrize("device", DEVICES)
def test_the_hint_and_the_must_follow_note_cover_nothing(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    device: str,
) -> None:
    page, sizes = table_page(browser, console, people, device)
    # West deals, so North leads and South follows: the cards of other suits are dimmed.
    open_game(page, server.base, server.new_game(level="easy", rules="varaq", seed=11,
                                                 dealer="W"))
    wait_for_bid(page)
    page.get_by_role("button", name="Bid 3", exact=True).click()
    wait_until_ready(page)
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("#status .hint-text")).to_be_visible()
    for width, height in sizes:
        resize(page, width, height)
        dimmed = page.locator('#hand button[aria-disabled="true"]').first
        dimmed.dispatch_event("click")  # where it shows is test_touch_sizes' business
        expect(page.locator("#card-note")).to_contain_text("must follow")
        page.wait_for_timeout(300)  # the note has slid in
        where = f"{width}x{height}"
        found = parts(page)  # at once: the note goes after a few seconds
        shot(page, f"overlaps-hint-{where}")
        felt, status, hint, note, partner = (found[k] for k in
                                             ("felt", "status", "hint", "note", "partner"))
        assert felt and status and hint and note, (where, found)
        apart = [(status, felt), (hint, felt), (note, felt), (note, status), (note, hint)]
        if partner:
            apart += [(hint, partner), (note, partner)]
            assert inside(partner, felt), (where, "the partner's cards are cut off", partner,
                                           felt)
        for a, b in apart:
            assert not overlap(a, b), (where, a, b)
        for plate in found["plates"]:
            assert inside(plate, felt), (where, "a seat's plate is cut off", plate, felt)


@pytest.mark.parametrize("device", DEVICES)
def test_the_blind_nil_panel_leaves_the_seat_plates_clear(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    device: str,
) -> None:
    page, sizes = table_page(browser, console, people, device)
    # East-West lead by 150: South, on the trailing side, may bid blind nil.
    open_game(page, server.base, server.new_game(
        level="easy", rules="classic", start={"total": {"NS": 0, "EW": 150}}, dealer="N",
        seed=12))
    expect(page.get_by_role("button", name="Blind nil")).to_be_visible()
    for width, height in sizes:
        resize(page, width, height)
        where = f"{width}x{height}"
        shot(page, f"overlaps-blind-{where}")
        found = parts(page)
        assert found["blind"] and len(found["plates"]) == 4, (where, found)
        for plate in found["plates"]:
            assert not overlap(found["blind"], plate), (where, found["blind"], plate)
            assert inside(plate, found["felt"]), (where, "a seat's plate is cut off", plate)
        assert inside(found["blind"], found["felt"]), (where, found["blind"], found["felt"])


def long_name(prefix: str) -> str:
    """A long name of letters and spaces (2 to 24 characters), different on every call."""
    from online_driver import fresh_name

    return f"{prefix} {fresh_name('Kaimana')}"[:24]


@pytest.mark.parametrize("device", DEVICES)
def test_long_names_are_shown_whole(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    device: str,
) -> None:
    host, sizes = table_page(browser, console, people, device)
    sign_up(host, server.base, long_name("Leilani"))
    open_table(host, level="Easy", fill_bots=True)
    expect_waiting_room(host)
    code = host.locator("#waiting-code").inner_text().strip()
    partner = person(browser, console, people)
    sign_up(partner, server.base, long_name("Hana"))
    join_by_code(partner, code)
    start = host.get_by_role("button", name="Start", exact=True)
    expect(start).to_be_enabled()
    start.click()
    expect(host.locator("#hand button")).to_have_count(13)
    for width, height in sizes:
        resize(host, width, height)
        where = f"{width}x{height}"
        shot(host, f"overlaps-names-{where}")
        names = parts(host)["names"]
        assert len(names) >= 6, (where, names)  # four seats, two sides
        cut = [n for n in names if n["scroll"] > n["client"]]
        assert not cut, (where, cut)
