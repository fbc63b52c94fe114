"""Every page of the site, opened the way a visitor reaches it, for the checks that hold on all
of them: touch sizes and text sizes (test_touch_sizes.py) and the accessibility audit
(test_accessibility.py).

Each stop of :data:`TOUR` opens one page in a state worth checking (the table while South bids
and while South plays, the home page signed out and signed in with the lobby, a waiting room,
a reviewed hand...) and returns once the page has drawn what it is about.  The checks read the
page as it stands; they never look at the game's hidden state.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import Server
from online_driver import expect_waiting_room, fresh_name, open_home, open_table, sign_up
from playwright.sync_api import Page, expect
from table_driver import open_game, wait_for_bid, wait_until_ready

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

#: Window sizes of the phone checks: the issue's two phones, upright.
PHONES = [(390, 844), (360, 640)]


def _home(page: Page, server: Server) -> None:
    open_home(page, server.base)
    expect(page.get_by_role("form", name="Sign in")).to_be_visible()


def _lobby(page: Page, server: Server) -> None:
    sign_up(page, server.base, fresh_name("Tour"))
    expect(page.get_by_role("button", name="Quick match")).to_be_visible()


def _table_bid(page: Page, server: Server) -> None:
    open_game(page, server.base, server.new_game(level="easy", rules="varaq", seed=5))
    wait_for_bid(page)
    page.wait_for_timeout(400)  # cards that slide in have landed


def _table_play(page: Page, server: Server) -> None:
    _table_bid(page, server)
    page.get_by_role("button", name="Bid 3", exact=True).click()
    wait_until_ready(page)
    page.wait_for_timeout(400)


def _waiting_room(page: Page, server: Server) -> None:
    sign_up(page, server.base, fresh_name("Host"))
    open_table(page, level="Easy", fill_bots=True)
    expect_waiting_room(page)


def _learn(page: Page, server: Server) -> None:
    page.goto(f"{server.base}/learn?fast")
    expect(page.locator("#lesson-list li").first).to_be_visible()


def _lesson(page: Page, server: Server) -> None:
    page.goto(f"{server.base}/learn?fast")
    page.locator("#lesson-list li a").first.click()
    expect(page.locator("#hand button").first).to_be_visible()
    page.wait_for_timeout(400)


def _doc(path: str, heading: str) -> Callable[[Page, Server], None]:
    def open_doc(page: Page, server: Server) -> None:
        page.goto(f"{server.base}{path}")
        expect(page.locator("h1").first).to_contain_text(heading)
    return open_doc


def _review(page: Page, server: Server) -> None:
    page.goto(f"{server.base}/review")
    page.set_input_files("#record-file", str(EXAMPLES / "blind-nil-pass-back.json"))
    expect(page.locator("#review-title")).to_have_text("Hand 1, dealt by West")
    expect(page.locator(".review-trick").first).to_be_visible()


def _daily(page: Page, server: Server) -> None:
    page.goto(f"{server.base}/daily")
    expect(page.locator("#daily-card")).to_be_visible()


def _profile(page: Page, server: Server) -> None:
    name = fresh_name("Profile")
    sign_up(page, server.base, name)
    page.goto(f"{server.base}/players/{name}")
    expect(page.locator("h1").first).to_contain_text(name)


def _not_found(page: Page, server: Server) -> None:
    answer = page.goto(f"{server.base}/no-such-page")
    assert answer is not None and answer.status == 404
    expect(page.locator("h1").first).to_be_visible()


#: What a stop's page logs on purpose, as a pattern (the missing page answers 404, and the
#: browser says so in the console).
EXPECTED_CONSOLE = {"not-found": r"status of 404"}

#: Each page by a short name, and how to open it.
TOUR: dict[str, Callable[[Page, Server], None]] = {
    "home": _home,
    "lobby": _lobby,
    "table-bid": _table_bid,
    "table-play": _table_play,
    "waiting-room": _waiting_room,
    "learn": _learn,
    "lesson": _lesson,
    "help": _doc("/help", "Help"),
    "rules": _doc("/rules", "How to play"),
    "about": _doc("/about", "Spades"),
    "review": _review,
    "daily": _daily,
    "profile": _profile,
    "ratings": _doc("/players", "Ratings"),
    "not-found": _not_found,
}


# ---------------------------------------------------------------- the accessibility audit

#: CI runs ``npm ci`` first: there a missing axe-core fails the audit instead of skipping it.
CAN_AUDIT = AXE.exists() or bool(os.environ.get("CI"))
#: The impacts that fail a page.
BLOCKING = ("serious", "critical")
#: The pages allow only their own scripts (Content-Security-Policy); an audited page's context
#: lets Playwright's script tag in, and nothing else about the page changes.
AUDIT = {"bypass_csp": True}

#: axe's violations, each with the nodes it found, reduced to what a reader needs.
RUN_AXE_JS = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(' '), summary: n.failureSummary})),
  }));
}"""


def serious_violations(page: Page) -> str:
    """axe-core's audit of the page as it stands (its context opened with :data:`AUDIT`): each
    violation axe rates serious or critical, one line per element with what to fix; "" if
    none."""
    page.add_script_tag(path=str(AXE))
    violations: list[dict[str, Any]] = page.evaluate(RUN_AXE_JS)
    lines = []
    for v in violations:
        if v["impact"] not in BLOCKING:
            continue
        for node in v["nodes"]:
            summary = " ".join(str(node["summary"]).split())[:200]
            lines.append(f"{v['id']} ({v['impact']}) at {node['target']}: {v['help']}. {summary}")
    return "\n".join(lines)
