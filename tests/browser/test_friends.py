"""Friends in two browsers at once: one person follows another and sees them online, opens a
table and invites them; the invited person's page shows the invitation (and, its tab hidden,
raises a notification they opted in to), joins with one press, and is called back when the
match begins.  Both pages fit a laptop (1366×657) and a small phone (360×640).

Each browser context is one person.  A tab cannot really be hidden in a headless browser, so
the invited person's page reports itself hidden on demand (``HIDDEN_JS`` overrides
``document.visibilityState`` and ``document.hidden`` and dispatches ``visibilitychange``),
and ``window.Notification`` is wrapped to record every notification the page raises.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from harness import Console, shot
from online_driver import expect_waiting_room, fresh_name, open_home, open_table, sign_up
from playwright.sync_api import Browser, BrowserContext, Page, expect

from conftest import LAPTOP, SMALL_PHONE, person

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

#: Run before any script of the page: visibility on demand, and a record of notifications.
HIDDEN_JS = """
(() => {
  let hiddenNow = false;
  Object.defineProperty(Document.prototype, "visibilityState", {
    configurable: true, get() { return hiddenNow ? "hidden" : "visible"; } });
  Object.defineProperty(Document.prototype, "hidden", {
    configurable: true, get() { return hiddenNow; } });
  window.__setHidden = (value) => {
    hiddenNow = value;
    document.dispatchEvent(new Event("visibilitychange"));
  };
  window.__notes = [];
  const Real = window.Notification;
  if (!Real) return;
  class Recorded extends Real {
    constructor(title, options) {
      window.__notes.push({ title, body: options && options.body, tag: options && options.tag });
      super(title, options);
    }
  }
  window.Notification = Recorded;
})();
"""


def notes(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("window.__notes")
    return found


def wait_for_note(page: Page, title: str, patience: float = 30.0) -> None:
    """Wait until the page raised a notification called ``title`` (polled: the page's
    security policy allows no script built from a string, as ``wait_for_function`` does)."""
    deadline = time.monotonic() + patience
    while not any(n["title"] == title for n in notes(page)):
        assert time.monotonic() < deadline, f"no notification {title!r}: {notes(page)}"
        page.wait_for_timeout(100)


def fits(page: Page, selector: str) -> None:
    """``selector``, scrolled to, lies within the window, and the page does not scroll
    sideways."""
    page.locator(selector).scroll_into_view_if_needed()
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["x"] >= -0.5 and box["x"] + box["width"] <= size["width"] + 0.5, (selector, box)
    assert box["y"] >= -0.5 and box["y"] + box["height"] <= size["height"] + 0.5, (selector, box)
    wide = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    assert not wide, f"{selector}: the page scrolls sideways at {size}"


@pytest.mark.parametrize("invited_view", [LAPTOP, SMALL_PHONE], ids=["laptop", "phone"])
def test_a_friend_sees_you_online_and_your_invitation_brings_them_to_the_table(
    browser: Browser, console: Console, people: list[BrowserContext], server: Any,
    invited_view: dict[str, int],
) -> None:
    phone = invited_view is SMALL_PHONE
    extra = {"has_touch": True, "is_mobile": True} if phone else {}
    bo = person(browser, console, people, viewport=invited_view, **extra)
    bo.context.grant_permissions(["notifications"], origin=server.base)
    bo.context.add_init_script(HIDDEN_JS)
    bo_name = fresh_name("Bo")
    sign_up(bo, server.base, bo_name)
    # Notifications only after the press: the page has not asked before it.
    notify = bo.locator("#friends").get_by_role("button", name="Notify me when it's my turn")
    notify.click()
    expect(bo.locator("#friends .notify-button")).to_have_text("Notifications on")
    assert bo.evaluate("localStorage.getItem('varaq-notify')") == "on"

    ana = person(browser, console, people)
    ana_name = fresh_name("Ana")
    sign_up(ana, server.base, ana_name)
    panel = ana.get_by_role("region", name="Friends")
    panel.get_by_role("button", name="Follow or block").click()
    panel.get_by_label("Player's name").fill(bo_name)
    panel.get_by_role("button", name="Follow", exact=True).click()
    friend = panel.locator(".friend", has_text=bo_name)
    # Online at once if Bo's page socket is already open, else at the panel's next look (every
    # 20 s, REFRESH_SECONDS in friends.js): on a loaded two-core machine Bo's socket once
    # opened after Ana's follow was answered.
    expect(friend.locator(".friend-status")).to_have_text("Online", timeout=25_000)
    fits(ana, "#friends")
    shot(ana, "friends-panel-laptop")

    open_table(ana, level="Easy", fill_bots=True)
    expect_waiting_room(ana)
    box = ana.locator("#invite-box")
    expect(box).to_be_hidden()  # closed until asked for: the waiting room keeps its size
    fits(ana, "#waiting")
    ana.get_by_role("button", name="Invite…").click()
    expect(box).to_be_visible()

    bo.evaluate("window.__setHidden(true)")
    box.get_by_label("Invite a player").fill(bo_name)
    box.get_by_role("button", name="Invite", exact=True).click()
    expect(ana.locator("#invite-note")).to_contain_text(f"Invited {bo_name}")

    notice = bo.get_by_role("group", name=f"{ana_name} invites you to their table")
    expect(notice).to_be_visible()
    wait_for_note(bo, "An invitation — Varaq")
    assert bo.title().startswith("(1) ")
    bo.evaluate("window.__setHidden(false)")
    expect(bo).not_to_have_title("(1) .*")
    fits(bo, "#invites")
    shot(bo, f"friends-invite-{'phone' if phone else 'laptop'}")

    notice.get_by_role("button", name="Join").click()
    expect_waiting_room(bo)
    expect(bo.locator("#waiting-count")).to_have_text("2 of 4 seated")
    expect(ana.locator("#waiting-count")).to_have_text("2 of 4 seated")
    # Two seats are still empty: anyone seated may invite, Bo too.
    expect(bo.get_by_role("button", name="Invite…")).to_be_visible()
    fits(bo, "#waiting")

    bo.evaluate("window.__setHidden(true)")
    ana.get_by_role("button", name="Start", exact=True).click()
    wait_for_note(bo, "The match begins — Varaq")
    bo.evaluate("window.__setHidden(false)")


def test_a_blocked_person_is_kept_off_the_table(
    browser: Browser, console: Console, people: list[BrowserContext], server: Any,
) -> None:
    cy = person(browser, console, people, viewport=SMALL_PHONE)
    cy_name = fresh_name("Cy")
    sign_up(cy, server.base, cy_name)
    ana = person(browser, console, people)
    sign_up(ana, server.base, fresh_name("Ana"))
    panel = ana.get_by_role("region", name="Friends")
    panel.get_by_role("button", name="Follow or block").click()
    panel.get_by_label("Player's name").fill(cy_name)
    panel.get_by_role("button", name="Block", exact=True).click()
    expect(panel.locator("#friends-note")).to_have_text(f"You blocked {cy_name}.")
    expect(panel.locator(".friends-blocked summary")).to_have_text("Blocked players (1)")
    ana.get_by_role("link", name="Your profile and matches").click()
    own = ana.get_by_role("region", name="Friends")
    expect(own.locator(".friends-blocked summary")).to_have_text("Blocked players (1)")
    fits(ana, "#friends")
    open_home(ana, server.base)
    open_table(ana, level="Easy", fill_bots=True)
    code = ana.locator("#waiting-code").inner_text().strip()
    console.allow("status of 403")  # the refused join, as the browser logs it
    cy.get_by_label("Table code").fill(code)
    cy.get_by_role("button", name="Join table").click()
    expect(cy.locator("#lobby-error")).to_contain_text("blocked you")
    expect(ana.locator("#waiting-count")).to_have_text("1 of 4 seated")
