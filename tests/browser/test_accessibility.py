"""Every page passes an axe-core audit on a laptop.

axe-core (``package.json``'s devDependencies, installed by ``npm ci``) is injected into each
page of ``page_tour.TOUR`` once the page has drawn itself, at the most common laptop window
(1366×657).  A test fails on any violation axe rates "serious" or "critical" (contrast, names
of buttons and fields, landmarks, ARIA misuse...), and prints each one's rule, impact, target
and axe's own summary of what to fix.  The same audit on a phone (390×844, with touch) runs in
``test_touch_sizes.py``, on the page that test opens at that size for each stop of the tour.
"""

from __future__ import annotations

import pytest
from harness import Console, Server, shot
from page_tour import AUDIT, CAN_AUDIT, EXPECTED_CONSOLE, TOUR, serious_violations
from playwright.sync_api import Browser, BrowserContext

from conftest import LAPTOP, person

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


@pytest.mark.skipif(not CAN_AUDIT, reason="axe-core is not installed: run npm ci")
@pytest.mark.parametrize("stop", list(TOUR))
def test_the_page_has_no_serious_accessibility_violation_on_a_laptop(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    stop: str,
) -> None:
    page = person(browser, console, people, viewport=LAPTOP, **AUDIT)
    if stop in EXPECTED_CONSOLE:
        console.allow(EXPECTED_CONSOLE[stop])
    TOUR[stop](page, server)
    shot(page, f"a11y-{stop}-laptop")
    blocking = serious_violations(page)
    assert not blocking, f"{stop} on a laptop:\n{blocking}"
