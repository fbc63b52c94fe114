"""The whole table fits the screen, without scrolling, on laptops and phones, light and dark.

At each window size (a desktop window resized, a phone turned: ``harness.by_device``) the
test looks at a game while South bids and again while South plays, in both themes, and checks
the boxes the player needs: the four seats, the trick, every card of the hand, the bid panel
and every control. Each must lie inside the window, and none may cover another where the
player would lose something by it. A screenshot of each goes to
``artifacts/screenshots/fit-*.jpg``.
"""

from __future__ import annotations

from typing import Any

import pytest
from harness import DEVICES, Console, Server, by_device, device_options, resize, shot
from playwright.sync_api import Browser, Page
from table_driver import open_game, wait_for_bid, wait_until_ready

from conftest import open_context

pytestmark = pytest.mark.browser

SIZES = [
    (1366, 657), (1280, 720), (1440, 900), (1920, 1080), (390, 844), (360, 640),
    (844, 390),  # a phone on its side
]

#: Every box the player needs, by what it is; the hand's cards and the controls one by one.
BOXES_JS = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const shown = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  const all = (sel) => [...document.querySelectorAll(sel)].filter(shown).map((e) =>
    ({name: e.getAttribute('aria-label') || e.textContent.trim() || e.id, ...box(e)}));
  return {
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    window: [innerWidth, innerHeight],
    seats: all('.felt .seat'),
    trick: all('#trick'),
    cards: all('#hand .card'),
    bid: all('#bid-panel'),
    controls: all('.controls button, .controls a, .topbar button, .topbar select'),
  };
}"""


def overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two boxes share more than a hairline."""
    return (min(a["right"], b["right"]) - max(a["x"], b["x"]) > 1
            and min(a["bottom"], b["bottom"]) - max(a["y"], b["y"]) > 1)


def check_fit(page: Page, phase: str) -> None:
    boxes = page.evaluate(BOXES_JS)
    width, height = boxes["window"]
    where = f"{width}x{height} {phase}"
    assert boxes["scroll"][0] <= width and boxes["scroll"][1] <= height, (where, boxes["scroll"])
    assert len(boxes["seats"]) == 4 and len(boxes["trick"]) == 1, where
    assert len(boxes["cards"]) == 13, where
    assert len(boxes["controls"]) >= 7, where  # Hint, Last trick, Scores, Rules, … and the settings
    if phase == "bid":
        assert len(boxes["bid"]) == 1, where
    everything = [b for key in ("seats", "trick", "cards", "bid", "controls") for b in boxes[key]]
    for b in everything:
        assert b["x"] >= -0.5 and b["y"] >= -0.5, (where, b)
        assert b["right"] <= width + 0.5 and b["bottom"] <= height + 0.5, (where, b)
    # Boxes that must stay apart: seats from one another and from the trick, the bid panel from
    # the seats, the hand from everything but itself, and the controls from one another.
    apart = [
        *[(a, b) for i, a in enumerate(boxes["seats"]) for b in boxes["seats"][i + 1:]],
        *[(s, t) for s in boxes["seats"] for t in boxes["trick"]],
        *[(p, s) for p in boxes["bid"] for s in boxes["seats"]],
        *[(c, o) for c in boxes["cards"]
          for o in boxes["seats"] + boxes["trick"] + boxes["bid"] + boxes["controls"]],
        *[(a, b) for i, a in enumerate(boxes["controls"]) for b in boxes["controls"][i + 1:]],
    ]
    for a, b in apart:
        assert not overlap(a, b), (where, a, b)


@pytest.mark.parametrize("device", DEVICES)
def test_the_table_fits_the_window(
    browser: Browser, server: Server, console: Console, device: str,
) -> None:
    sizes = by_device(SIZES)[device]
    context = open_context(browser, console, **device_options(device, sizes))
    page = context.new_page()
    try:
        game_id = server.new_game(level="easy", rules="varaq", seed=sizes[0][0])
        open_game(page, server.base, game_id)
        for phase in ("bid", "play"):
            if phase == "bid":
                wait_for_bid(page)
            else:
                page.get_by_role("button", name="Bid 3", exact=True).click()
                wait_until_ready(page)
                page.mouse.move(0, 0)  # no card hovered
            for width, height in sizes:
                resize(page, width, height)
                for theme in ("light", "dark"):
                    page.emulate_media(color_scheme=theme)
                    check_fit(page, phase)
                    shot(page, f"fit-{width}x{height}-{phase}-{theme}")
    finally:
        context.close()
    assert not console.unexpected(), console.unexpected()
