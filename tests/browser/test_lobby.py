"""The online lobby on the home page, in a browser: accounts, opening a table, joining it by its
code and by a /join/{code} link, the profile's tables, and quick match.

Each browser context is a different person.  Everything is done through the page's labels and
buttons (see ``online_driver.py``); the server's answers are checked with each person's own
session.  Screenshots go to ``artifacts/screenshots/lobby-*.jpg``.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from harness import Console, Server, shot
from online_driver import (
    PASSWORD,
    account_form,
    expect_signed_in,
    fresh_name,
    join_by_code,
    open_home,
    open_table,
    quick_match,
    sign_in,
    sign_out,
    sign_up,
    state_as,
    table_id,
)
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from conftest import LAPTOP, person
from conftest import SMALL_PHONE as PHONE

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


# ---------------------------------------------------------------- accounts


def test_create_account_sign_out_and_sign_in_again(
    page: Page, server: Server, console: Console
) -> None:
    console.allow(r"status of 401")  # Chromium logs the refused sign-in itself
    name = fresh_name("Ada")
    open_home(page, server.base)
    # Signed out: the forms, and nothing that needs an account.
    for button in ("Quick match", "Open a table", "Join table", "Sign out"):
        expect(page.get_by_role("button", name=button)).to_have_count(0)
    sign_in_form = account_form(page, "Sign in")
    new_form = account_form(page, "New account")
    expect(sign_in_form.get_by_label("Name")).to_have_attribute("autocomplete", "username")
    expect(sign_in_form.get_by_label("Password")).to_have_attribute(
        "autocomplete", "current-password")
    expect(new_form.get_by_label("Password")).to_have_attribute("autocomplete", "new-password")

    sign_up(page, None, name)
    expect(page.locator("#profile-record")).to_have_text("No match finished online yet.")
    link = page.get_by_role("link", name="Your profile and matches")
    expect(link).to_have_attribute("href", f"/players/{quote(name)}")
    profile = page.request.get(f"{server.base}/players/{quote(name)}")
    assert profile.status == 200 and name in profile.text()
    for button in ("Quick match", "Open a table", "Join table"):
        expect(page.get_by_role("button", name=button)).to_be_visible()
    page.reload()
    expect_signed_in(page, name)  # the session outlives the page

    sign_out(page)
    assert page.request.get(f"{server.base}/api/account").json() == {"signed_in": False}

    # A wrong password: the server's own sentence, beside the form, and still signed out.
    reason = page.request.post(f"{server.base}/api/account/signin",
                               data={"name": name, "password": "not the password"}).json()
    sign_in(page, name, "not the password")
    alert = sign_in_form.get_by_role("alert")
    # A password check is slow on purpose (argon2), and slower on a loaded two-core machine.
    expect(alert).to_have_text(reason["error"], timeout=20_000)
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)

    sign_in(page, name)
    expect_signed_in(page, name)
    expect(alert).to_be_hidden()
    assert page.request.get(f"{server.base}/api/account").json()["name"] == name


def test_sign_out_everywhere_signs_the_other_browser_out_too(
    page: Page, browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    name = fresh_name("Eve")
    sign_up(page, server.base, name)
    phone = person(browser, console, people)
    open_home(phone, server.base)
    sign_in(phone, name)
    expect_signed_in(phone, name)
    # Folded away under the profile, so the everyday "Sign out" stays the one button.
    expect(page.get_by_role("button", name="Sign out everywhere")).to_have_count(0)
    page.get_by_text("Signed in on another device?").click()
    page.get_by_role("button", name="Sign out everywhere").click()
    expect(account_form(page, "Sign in")).to_be_visible()
    assert page.request.get(f"{server.base}/api/account").json() == {"signed_in": False}
    # The phone kept its cookie, and it no longer signs anyone in.
    assert phone.request.get(f"{server.base}/api/account").json() == {"signed_in": False}
    phone.reload()
    expect(account_form(phone, "Sign in")).to_be_visible()


def test_a_taken_name_is_refused_in_the_servers_words(
    page: Page, server: Server, console: Console
) -> None:
    console.allow(r"status of 409")
    console.allow(r"status of 400")
    name = fresh_name("Taken")
    sign_up(page, server.base, name)
    sign_out(page)
    form = account_form(page, "New account")
    form.get_by_label("Name").fill(name.upper())
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Create account").click()
    expect(form.get_by_role("alert")).to_have_text(f"the name {name.upper()!r} is taken")
    form.get_by_label("Name").fill("x")
    form.get_by_role("button", name="Create account").click()
    expect(form.get_by_role("alert")).to_have_text("a name has 2 to 24 characters")


def test_the_dailys_sign_in_link_lands_in_the_account_box(page: Page, server: Server) -> None:
    page.goto(f"{server.base}/daily")
    page.get_by_role("link", name="Sign in").click()
    page.wait_for_url(f"{server.base}/#account")
    name = account_form(page, "Sign in").get_by_label("Name")
    expect(name).to_be_focused()


# ---------------------------------------------------------------- private tables


def test_open_a_table_then_join_it_by_code_and_by_link(
    page: Page, browser: Browser, server: Server, console: Console,
    people: list[BrowserContext],
) -> None:
    console.allow(r"status of 404")  # the wrong code below, refused on purpose
    host_name = fresh_name("Host")
    sign_up(page, server.base, host_name)
    # Two variations changed in the shared rules form: a shorter match, and no nil.
    table = open_table(page, level="Easy", preset="Varaq", options={"Target": 300, "Nil": False},
                       timer="30 s")
    expect(page).to_have_url(f"{server.base}/play/{table}")
    state = state_as(page, server.base, table)
    assert state["status"] == "seating" and state["kind"] == "private"
    assert state["you"] == "S" and state["level"] == "easy"
    assert state["view"]["rules"] == {"preset": "varaq", "target": 300, "nil": False}
    assert state["table"]["fill_bots"] is True and state["table"]["turn_timer"] == 30
    code = state["table"]["code"]

    # A second person types the code (in small letters, as people do) after a wrong one.
    guest = person(browser, console, people)
    sign_up(guest, server.base, fresh_name("Guest"))
    guest.get_by_label("Table code").fill("QQQQQQ")
    guest.get_by_role("button", name="Join table").click()
    expect(guest.locator("#lobby-error")).to_have_text("no table has that code")
    expect(guest).to_have_url(f"{server.base}/?fast")
    assert join_by_code(guest, code.lower()) == table
    assert state_as(guest, server.base, table)["you"] == "N"  # the host's partner first

    # A third opens the link while signed out: told what to do, then seated after signing up.
    third = person(browser, console, people)
    open_home(third, server.base, f"/join/{code}")
    expect(third.locator("#join-note")).to_have_text(
        f"Sign in or create an account to join table {code}.")
    expect(account_form(third, "Sign in").get_by_label("Name")).to_be_focused()
    shot(third, "lobby-join-link-signed-out")
    form = account_form(third, "New account")
    form.get_by_label("Name").fill(fresh_name("Third"))
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Create account").click()
    assert table_id(third) == table
    seated = state_as(third, server.base, table)
    assert seated["you"] in ("E", "W") and seated["status"] == "seating"

    # The host's profile lists the table, a link back to it in words.
    open_home(page, server.base)
    link = page.locator("#my-tables").get_by_role("link", name="Private table")
    expect(link).to_have_text("Private table · waiting for players · you sit South")
    expect(link).to_have_attribute("href", f"/play/{table}")
    shot(page, "lobby-signed-in-with-a-table")
    link.click()
    expect(page).to_have_url(f"{server.base}/play/{table}")


def test_a_join_link_when_signed_in_goes_straight_to_the_table(
    page: Page, browser: Browser, server: Server, console: Console,
    people: list[BrowserContext],
) -> None:
    console.allow(r"status of 404")
    sign_up(page, server.base, fresh_name("Host"))
    table = open_table(page)
    code = state_as(page, server.base, table)["table"]["code"]
    friend = person(browser, console, people)
    sign_up(friend, server.base, fresh_name("Friend"))
    # Dashes and spaces in a code are the person's, not the code's.
    open_home(friend, server.base, f"/join/{code[:3]}-{code[3:]}")
    assert table_id(friend) == table
    assert state_as(friend, server.base, table)["you"] == "N"
    # A link with a code nobody has: the reason, on the home page.
    open_home(friend, server.base, "/join/NOSUCH")
    expect(friend.locator("#lobby-error")).to_have_text("no table has that code")
    expect(friend).to_have_url(f"{server.base}/")
    expect(friend.get_by_label("Table code")).to_have_value("NOSUCH")


def test_open_a_table_dialog_refuses_impossible_rules_and_keeps_new_game_apart(
    page: Page, server: Server, console: Console
) -> None:
    console.allow(r"status of 422")
    sign_up(page, server.base, fresh_name("Rules"))
    page.get_by_role("button", name="Open a table").click()
    dialog = page.get_by_role("dialog", name="Open a table")
    # The default table is chosen; Classic is one choice away.
    expect(dialog.get_by_label("Preset")).to_have_value("varaq")
    dialog.get_by_label("Preset").select_option(label="Classic")
    dialog.get_by_label("Custom table").check()
    # Classic has blind nil; without nil the server refuses it, in its words.
    dialog.get_by_label("Nil", exact=True).uncheck()
    shot(page, "lobby-open-table-dialog")
    dialog.get_by_role("button", name="Open the table").click()
    expect(dialog.get_by_role("alert")).to_contain_text("Blind nil needs nil")
    # A range the form knows is refused before sending, as in the New game dialog.
    dialog.get_by_label("Target", exact=True).fill("6000")
    dialog.get_by_role("button", name="Open the table").click()
    expect(dialog.get_by_role("alert")).to_have_text("Target must be between 50 and 5000")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    # The New game dialog keeps its own form: its choices are not the lobby's.
    page.get_by_role("button", name="New game").click()
    new_game = page.locator("#new-game-dialog")
    expect(new_game.get_by_label("Preset")).to_have_value("varaq")
    new_game.get_by_label("Custom table").check()
    expect(new_game.get_by_label("Target", exact=True)).to_have_value("500")
    expect(new_game.get_by_label("Nil", exact=True)).to_be_checked()
    expect(new_game.get_by_label("Blind nil", exact=True)).not_to_be_checked()


def test_open_the_table_pressed_before_the_presets_arrive_waits_for_them(
    page: Page, server: Server, console: Console
) -> None:
    """The dialog opens at once and fills its preset list when ``/api/presets`` answers; a
    player who presses "Open the table" before that (a slow phone, a busy server) gets the
    table with the default rules, not a refusal of an empty preset."""
    sign_up(page, server.base, fresh_name("Quick"))
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)  # answered below, once the button has been pressed

    page.route("**/api/presets", hold)
    page.get_by_role("button", name="Open a table").click()
    dialog = page.get_by_role("dialog", name="Open a table")
    expect(dialog).to_be_visible()
    for _ in range(200):  # the request reaches the handler while Playwright waits
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    opening = dialog.get_by_role("button", name="Open the table")
    opening.click()
    expect(opening).to_be_disabled()
    held[0].continue_()
    table = table_id(page)
    assert state_as(page, server.base, table)["view"]["rules"] == "varaq"


# ---------------------------------------------------------------- quick match


def test_quick_match_shows_the_wait_and_leaves_with_one_click(
    page: Page, server: Server
) -> None:
    sign_up(page, server.base, fresh_name("Quick"))
    quick_match(page, "People only")
    wait = page.locator("#quick-wait")
    expect(wait).to_contain_text("1 in the queue")
    expect(wait).to_contain_text("People only")
    expect(page.locator("#quick-waited")).to_have_text(re.compile(r"^[2-9] s$"), timeout=10_000)
    assert page.request.get(f"{server.base}/api/quick").json()["state"] == "waiting"
    shot(page, "lobby-quick-waiting")
    # A reload finds the wait again, with the seconds already waited.
    page.reload()
    expect(wait).to_be_visible()
    waited = int(page.locator("#quick-waited").inner_text().split()[0])
    assert waited >= 2
    page.get_by_role("button", name="Leave queue").click()
    expect(page.get_by_role("button", name="Quick match")).to_be_visible()
    expect(wait).to_be_hidden()
    assert page.request.get(f"{server.base}/api/quick").json()["state"] == "idle"


def test_four_people_pressing_quick_match_sit_at_one_table(
    page: Page, browser: Browser, server: Server, console: Console,
    people: list[BrowserContext],
) -> None:
    pages = [page, *(person(browser, console, people) for _ in range(3))]
    for each in pages:
        sign_up(each, server.base, fresh_name("Four"))
    for each in pages:
        quick_match(each, "People only")
    tables = {table_id(each) for each in pages}
    assert len(tables) == 1, tables
    table = tables.pop()
    seats = {state_as(each, server.base, table)["you"] for each in pages}
    assert seats == {"N", "E", "S", "W"}
    assert state_as(page, server.base, table)["kind"] == "quick"


# ---------------------------------------------------------------- fit and looks

#: What sticks out of the window: the page's width and every box of the home page.
FIT_JS = """() => {
  const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const wide = [...document.querySelectorAll('#home *')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > innerWidth + 0.5 || r.left < -0.5);
  }).map((e) => e.id || e.className || e.tagName);
  const page = document.documentElement;
  return {width: page.scrollWidth, height: page.scrollHeight,
          window: [innerWidth, innerHeight], hero: box('.hero'), online: box('#online'), wide};
}"""


def check_fit(page: Page, where: str, *, first_screen: bool) -> None:
    fit = page.evaluate(FIT_JS)
    width, height = fit["window"]
    assert fit["width"] <= width, (where, fit)
    assert not fit["wide"], (where, fit["wide"])
    if first_screen:
        assert fit["height"] <= height, (where, fit)
        for part in ("hero", "online"):
            assert fit[part]["top"] >= 0 and fit[part]["bottom"] <= height, (where, part, fit)


def dark(page: Page) -> None:
    page.get_by_role("button", name="Switch to dark theme").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["1366x657", "360x640"])
def test_home_page_fits_signed_out_and_signed_in_in_both_themes(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
    size: dict[str, int],
) -> None:
    phone = size is PHONE
    page = person(browser, console, people, viewport=size, is_mobile=phone, has_touch=phone)
    label = f"{size['width']}x{size['height']}"
    open_home(page, server.base)
    check_fit(page, f"{label} signed out", first_screen=not phone)
    shot(page, f"lobby-home-{label}-signed-out-light")
    sign_up(page, None, fresh_name("Fit"))
    # Three tables to list, as a regular has.
    for _ in range(3):
        open_table(page)
        open_home(page, server.base)
    expect(page.locator("#my-tables li")).to_have_count(3)
    check_fit(page, f"{label} signed in", first_screen=not phone)
    shot(page, f"lobby-home-{label}-signed-in-light")
    dark(page)
    check_fit(page, f"{label} signed in, dark", first_screen=not phone)
    shot(page, f"lobby-home-{label}-signed-in-dark")
    # The Open a table dialog: no sideways scroll in it either, down to its last choices.
    page.get_by_role("button", name="Open a table").click()
    dialog = page.get_by_role("dialog", name="Open a table")
    dialog.get_by_label("Custom table").check()
    assert dialog.evaluate("(d) => d.scrollWidth <= d.clientWidth"), label
    dialog.get_by_label("Turn timer").scroll_into_view_if_needed()
    shot(page, f"lobby-open-table-{label}-dark")
    dialog.get_by_role("button", name="Cancel").click()
    quick_match(page, "Bots after 2 min")
    check_fit(page, f"{label} waiting, dark", first_screen=not phone)
    shot(page, f"lobby-home-{label}-waiting-dark")
    page.get_by_role("button", name="Leave queue").click()
    sign_out(page)
    check_fit(page, f"{label} signed out, dark", first_screen=not phone)
    shot(page, f"lobby-home-{label}-signed-out-dark")
