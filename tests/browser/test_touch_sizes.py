"""On a phone every control is big enough for a finger and every word big enough to read.

Issue 18 measured table buttons 29 px tall, a 26 px speed select, ~20 px lesson links, help
questions and review toggles, and text under 12 px on seat plates, badges, review notes and
the daily calendar.  Here every page of the site (``page_tour.TOUR``) is opened on the
issue's two phones, with touch (``pointer: coarse``), and:

* every visible control (a link, button, select, input, summary, ``[role=button]`` or a label
  dressed as a button) is at least 44 px tall; a checkbox or a radio counts by its label, which
  is what the finger hits.  The one exception is a link inside running text (a sentence with
  words of its own around the link), which WCAG 2.5.8 leaves to the line height;
* every visible text node's computed font size is at least 12 px;
* axe-core's accessibility audit finds nothing serious at the first phone's size (the laptop's
  audit is ``test_accessibility.py``'s; each stop's page is opened once for both checks);
* on the table, each of the 13 cards shows a strip at least 32 px wide, and a tap at the
  centre of that strip lands on that card and lifts it (or, for a card that may not be played,
  says why that card).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from harness import Console, Server, phone_options, resize, shot
from page_tour import AUDIT, CAN_AUDIT, EXPECTED_CONSOLE, PHONES, TOUR, serious_violations
from playwright.sync_api import Browser, BrowserContext, Page, expect
from table_driver import open_game, wait_for_bid, wait_until_ready

from conftest import person

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

#: The smallest tap target on a touch screen (WCAG 2.5.5, Apple's and Google's guides).
TOUCH_PX = 44
#: The smallest text.
TEXT_PX = 12
#: The narrowest strip of a card in the hand a finger must be able to hit.
CARD_STRIP_PX = 32

#: Controls shorter than a finger, as {name, tag, h}; links in running text are left out.
SHORT_CONTROLS_JS = """(least) => {
  const seen = (e) => e.checkVisibility({opacityProperty: true, visibilityProperty: true})
    && e.getBoundingClientRect().width > 1 && e.getBoundingClientRect().height > 1;
  const words = (s) => (s.match(/[\\p{L}\\p{N}]/gu) || []).length;
  // A link in a sentence: its paragraph has words of its own besides its links.
  const inRunningText = (e) => {
    if (e.tagName !== 'A' || getComputedStyle(e).display !== 'inline') return false;
    const block = e.parentElement.closest('p, li, dd, td, figcaption');
    if (!block) return false;
    const linked = [...block.querySelectorAll('a')].reduce((n, a) => n + words(a.textContent), 0);
    return words(block.textContent) > linked;
  };
  const target = (e) => {
    if (e.tagName === 'INPUT' && ['checkbox', 'radio'].includes(e.type)) {
      return e.closest('label') || (e.id && document.querySelector(`label[for="${e.id}"]`)) || e;
    }
    return e;
  };
  const short = [];
  const sel = 'a[href], button, select, input:not([type=hidden]), textarea, summary, '
    + '[role=button], label.button';
  for (const e of document.querySelectorAll(sel)) {
    if (e.closest('#hand') || !seen(e) || inRunningText(e)) continue;
    const t = target(e);
    if (!seen(t)) continue;
    const h = t.getBoundingClientRect().height;
    if (h < least - 0.5) {
      const name = (e.getAttribute('aria-label') || e.textContent || e.id || '').trim()
        .replace(/\\s+/g, ' ').slice(0, 40);
      short.push({name, tag: e.tagName.toLowerCase(), id: e.id, h: Math.round(h * 10) / 10});
    }
  }
  return short;
}"""

#: Visible text smaller than ``least`` px, as {text, size, where}: the text nodes, and the
#: text CSS writes (a card's marks are ``::before`` content).
SMALL_TEXT_JS = """(least) => {
  const small = [];
  const check = (e, text, style) => {
    if (!e.checkVisibility({opacityProperty: true, visibilityProperty: true})) return;
    const r = e.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return;  // visually hidden: for screen readers
    const size = parseFloat(style.fontSize);
    if (size < least - 0.01) {
      const where = e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`;
      small.push({text: text.slice(0, 30), size: Math.round(size * 10) / 10, where});
    }
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const e = node.parentElement;
    if (!text || !e || ['SCRIPT', 'STYLE', 'OPTION'].includes(e.tagName)) continue;
    check(e, text, getComputedStyle(e));
  }
  for (const e of document.body.querySelectorAll('*')) {
    for (const pseudo of ['::before', '::after']) {
      const style = getComputedStyle(e, pseudo);
      const text = (e.dataset.glyph || style.content.replace(/^"|"$/g, '')).trim();
      if (style.content === 'none' || style.content === 'normal') continue;
      if (text) check(e, text, style);
    }
  }
  return small;
}"""


def tour_page(browser: Browser, console: Console, people: list[BrowserContext],
              width: int, height: int) -> Page:
    return person(browser, console, people, **phone_options(width, height), **AUDIT)


@pytest.mark.parametrize("stop", list(TOUR))
def test_every_control_fits_a_finger_every_word_is_readable_and_axe_finds_nothing_serious(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    stop: str,
) -> None:
    """Each stop of the tour on each phone: one page, turned from one phone's size to the
    next (the layout comes from the media queries alone: ``harness.by_device``), audited by
    axe-core at the first."""
    page = tour_page(browser, console, people, *PHONES[0])
    if stop in EXPECTED_CONSOLE:
        console.allow(EXPECTED_CONSOLE[stop])
    TOUR[stop](page, server)
    assert page.evaluate("matchMedia('(pointer: coarse)').matches"), "not a touch screen"
    if CAN_AUDIT:
        blocking = serious_violations(page)
        assert not blocking, f"{stop} on a {PHONES[0][0]}x{PHONES[0][1]} phone:\n{blocking}"
    for width, height in PHONES:
        resize(page, width, height)
        shot(page, f"touch-{stop}-{width}x{height}")
        short = page.evaluate(SHORT_CONTROLS_JS, TOUCH_PX)
        small = page.evaluate(SMALL_TEXT_JS, TEXT_PX)
        assert not short and not small, (
            f"{stop} at {width}x{height}: controls under {TOUCH_PX} px: {short}; "
            f"text under {TEXT_PX} px: {small}")


#: Each card of the hand, where it shows: the run of points along the middle of its visible
#: part where a finger lands on it, found by asking the page what is under each point.
CARD_STRIPS_JS = """(only) => {
  const owner = (x, y) => {
    const hit = document.elementFromPoint(x, y);
    return hit && hit.closest('#hand button');
  };
  const cards = [...document.querySelectorAll('#hand button')];
  return (only === null ? cards : [cards[only]]).map((card) => {
    const r = card.getBoundingClientRect();
    let best = null;
    // The row of the card's visible part where its run is longest: a card of the back row
    // shows above the front row, a card of one row beside its right-hand neighbour.
    for (let y = r.top + 2; y < r.bottom - 2; y += 2) {
      let start = null;
      for (let x = Math.floor(r.left); x <= r.right; x += 1) {
        const mine = owner(x, y) === card;
        if (mine && start === null) start = x;
        if ((!mine || x + 1 > r.right) && start !== null) {
          const end = mine ? x : x - 1;
          if (!best || end - start > best.w) best = {x: (start + end) / 2, y, w: end - start};
          start = null;
        }
      }
    }
    let top = best ? best.y : 0, bottom = best ? best.y : 0;
    if (best) {
      while (top - 1 > r.top && owner(best.x, top - 1) === card) top -= 1;
      while (bottom + 1 < r.bottom && owner(best.x, bottom + 1) === card) bottom += 1;
    }
    return {name: card.getAttribute('aria-label'), w: best ? best.w : 0, h: bottom - top,
            x: best ? best.x : 0, y: (top + bottom) / 2};
  });
}"""

#: A card a first tap lifted.
LIFTED = re.compile(r"\blifted\b")

#: The card a finger last touched, as the page saw it.
TOUCHED_JS = """() => { window.__touched = null;
  document.addEventListener('pointerdown', (event) => {
    const card = event.target.closest('#hand button');
    window.__touched = card ? card.getAttribute('aria-label') : event.target.tagName;
  }, true); }"""


def strips(page: Page, only: int | None = None) -> list[dict[str, Any]]:
    """Every card's strip, or (``only``) the strip of that card of the hand alone: each asks
    the page what lies under every point of the card, which is slow on a large phone."""
    found: list[dict[str, Any]] = page.evaluate(CARD_STRIPS_JS, only)
    return found


@pytest.mark.parametrize(("width", "height"), PHONES, ids=[f"{w}x{h}" for w, h in PHONES])
def test_each_card_shows_a_strip_a_finger_can_tap(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    width: int, height: int,
) -> None:
    page = tour_page(browser, console, people, width, height)
    open_game(page, server.base, server.new_game(level="easy", rules="varaq", seed=11,
                                                 dealer="W"))
    wait_for_bid(page)
    page.get_by_role("button", name="Bid 3", exact=True).click()
    wait_until_ready(page)
    expect(page.locator("#hand button")).to_have_count(13)
    page.wait_for_timeout(400)  # the cards have landed
    shot(page, f"touch-cards-{width}x{height}")
    narrow = [s for s in strips(page) if s["w"] < CARD_STRIP_PX or s["h"] < CARD_STRIP_PX]
    assert not narrow, f"{width}x{height}: cards showing less than {CARD_STRIP_PX} px: {narrow}"
    page.evaluate(TOUCHED_JS)
    for i in range(13):
        # Measured again before each tap: a lifted card moves up over the row behind it.
        strip = strips(page, i)[0]
        page.touchscreen.tap(strip["x"], strip["y"])
        touched = page.evaluate("window.__touched")
        assert touched == strip["name"], f"a tap on {strip['name']} touched {touched}"
        card = page.locator("#hand button").nth(i)
        if "playable" in (card.get_attribute("class") or ""):
            expect(card).to_have_class(LIFTED)
        else:
            expect(page.locator("#card-note")).to_be_visible()
    shot(page, f"touch-cards-{width}x{height}-tapped")

