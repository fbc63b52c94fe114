"""Every page passes an axe-core audit on a laptop and on a phone.

axe-core (``package.json``'s devDependencies, installed by ``npm ci``) is injected into each
page of ``page_tour.TOUR`` once the page has drawn itself, at the most common laptop window
(1366×657) and on a phone (390×844, with touch).  A test fails on any violation axe rates
"serious" or "critical" (contrast, names of buttons and fields, landmarks, ARIA misuse...),
and prints each one's rule, impact, target and axe's own summary of what to fix.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from harness import Console, Server, phone_options, shot
from page_tour import EXPECTED_CONSOLE, TOUR
from playwright.sync_api import Browser, BrowserContext

from conftest import LAPTOP, person

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
#: The impacts that fail a page.
BLOCKING = ("serious", "critical")

#: axe's violations, each with the nodes it found, reduced to what a reader needs.
RUN_AXE_JS = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(' '), summary: n.failureSummary})),
  }));
}"""

SIZES = {"laptop": {"viewport": LAPTOP}, "phone": phone_options(390, 844)}
#: The pages allow only their own scripts (Content-Security-Policy); the audit's context lets
#: Playwright's script tag in, and nothing else about the page changes.
AUDIT = {"bypass_csp": True}


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        for node in v["nodes"]:
            summary = " ".join(str(node["summary"]).split())[:200]
            lines.append(f"{v['id']} ({v['impact']}) at {node['target']}: {v['help']}. {summary}")
    return "\n".join(lines)


# CI runs ``npm ci`` first: there a missing axe-core fails the tests instead of skipping them.
@pytest.mark.skipif(not AXE.exists() and not os.environ.get("CI"),
                    reason="axe-core is not installed: run npm ci")
@pytest.mark.parametrize("stop", list(TOUR))
@pytest.mark.parametrize("size", list(SIZES))
def test_the_page_has_no_serious_accessibility_violation(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    size: str, stop: str,
) -> None:
    page = person(browser, console, people, **SIZES[size], **AUDIT)
    if stop in EXPECTED_CONSOLE:
        console.allow(EXPECTED_CONSOLE[stop])
    TOUR[stop](page, server)
    shot(page, f"a11y-{stop}-{size}")
    page.add_script_tag(path=str(AXE))
    violations: list[dict[str, Any]] = page.evaluate(RUN_AXE_JS)
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{stop} on a {size}:\n{describe(blocking)}"
