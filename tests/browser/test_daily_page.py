"""The daily in a browser: two people on one server get the same first hand and see each other
on the day's leaderboard with the comparison against the field; a guest comes back to the same
try; yesterday's daily plays and is marked late; the page fits laptops and phones, light and
dark (screenshots in ``artifacts/screenshots/daily-*.jpg``).

The server is a ``varaq serve`` of its own whose Hard players sample one layout a decision
(``VARAQ_DAILY_SAMPLES=1``), so a hand takes moments; South's cards after the first hand are
played through the API with the person's own session, as the page would send them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest
from harness import Console, Server, shot
from playwright.sync_api import Browser, BrowserContext, Page, expect
from table_driver import cards_in_hand

from conftest import open_context
from varaq.daily import DAILY_RULES
from varaq.rulebook import describe
from varaq.rules import Rules

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

DESKTOP = {"width": 1366, "height": 657}
PHONE = {"width": 360, "height": 640}
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def daily_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("varaq-daily")
    extra = {"VARAQ_DAILY_SAMPLES": "1", "VARAQ_SECRET": "the browser tests' daily secret",
             "VARAQ_HOME": str(root)}
    saved = {key: os.environ.get(key) for key in extra}
    os.environ.update(extra)
    srv = Server(root / "daily.sqlite3", root / "serve.log")
    try:
        srv.start()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    yield srv
    srv.stop()


def today() -> date:
    return datetime.now(UTC).date()


def sign_up(ctx: BrowserContext, base: str, name: str) -> None:
    """An account for this browser: the session cookie lands in the context's jar."""
    answer = ctx.request.post(f"{base}/api/account/signup",
                              data={"name": name, "password": PASSWORD})
    assert answer.status == 201, answer.text()


def open_daily(page: Page, base: str, path: str = "/daily") -> None:
    page.goto(f"{base}{path}")
    page.wait_for_selector("body[data-ready]")


def play_from_daily_page(page: Page) -> str:
    """Press Play (or Continue) on the daily page; the table's id."""
    page.locator("#daily-play").click()
    page.wait_for_url("**/play/*")
    expect(page.locator("#hand button")).to_have_count(13)
    return page.url.rsplit("/", 1)[-1]


def play_first_hand(ctx: BrowserContext, base: str, table: str, bid: str) -> None:
    """South's side of the first hand through the API, as the page sends it."""
    for _ in range(5000):
        state = ctx.request.get(f"{base}/api/games/{table}").json()
        view = state["view"]
        if view["phase"] in ("deal", "over"):
            return
        if not view["legal"]:
            ctx.request.get(f"{base}/healthz")  # a moment for the computer players
            continue
        legal = view["legal"]
        action = bid if bid in legal else legal[0]
        answer = ctx.request.post(f"{base}/api/games/{table}/actions",
                                  data={"action": action, "version": state["version"]})
        assert answer.status in (200, 409), answer.text()
    raise AssertionError("the first hand did not finish")


def board_names(page: Page) -> list[str]:
    names = page.locator("#board-body td.name").all_inner_texts()
    return [name.split(" (you)")[0] for name in names]


def test_two_people_get_the_same_cards_and_meet_on_the_leaderboard(
    browser: Browser, console: Console, daily_server: Server,
) -> None:
    base = daily_server.base
    people = {"Ana": "bid 3", "Bo": "bid 1"}
    hands, tables, pages = {}, {}, {}
    contexts = []
    for name in people:
        ctx = open_context(browser, console, viewport=DESKTOP)
        contexts.append(ctx)
        sign_up(ctx, base, name)
        page = ctx.new_page()
        open_daily(page, base)
        expect(page.locator("#daily-kicker")).to_have_text("Today's daily")
        expect(page.locator("#daily-who")).to_contain_text("this try counts")
        expect(page.locator("#daily-play")).to_have_text("Play today's daily")
        tables[name] = play_from_daily_page(page)
        hands[name] = cards_in_hand(page)
        label = page.locator("#daily-label")
        expect(label).to_be_visible()
        expect(label).to_contain_text(f"Daily {today().isoformat()}")
        expect(page.locator("#hint-button")).to_be_hidden()
        pages[name] = page
    shot(pages["Ana"], "daily-table-1366x657")
    assert hands["Ana"] == hands["Bo"] and len(hands["Ana"]) == 13
    assert tables["Ana"] != tables["Bo"]

    for ctx, (name, bid) in zip(contexts, people.items(), strict=True):
        play_first_hand(ctx, base, tables[name], bid)
        assert ctx.request.post(f"{base}/api/games/{tables[name]}/concede", data={}).ok
    ana = pages["Ana"]
    ana.reload()
    expect(ana.locator("#over-dialog")).to_be_visible()
    leaderboard = ana.locator("#over-daily")
    expect(leaderboard).to_be_visible()
    expect(ana.locator("#over-new-game")).to_be_hidden()
    leaderboard.click()
    ana.wait_for_url(f"**/daily/{today().isoformat()}")
    ana.wait_for_selector("body[data-ready]")
    # The rows are written just after the match ends: read again until both are ranked.
    for _ in range(20):
        if sorted(board_names(ana)) == ["Ana", "Bo"]:
            break
        ana.wait_for_timeout(250)
        open_daily(ana, base, f"/daily/{today().isoformat()}")
    assert sorted(board_names(ana)) == ["Ana", "Bo"]
    expect(ana.locator("#board-counts")).to_contain_text("2 players ranked")
    fields = ana.locator("#board-body td.vs-field").all_inner_texts()
    assert len(fields) == 2 and all(f[0] in "+−±" for f in fields)
    expect(ana.locator("#board-body tr.you td.name")).to_contain_text("Ana")
    expect(ana.locator("#daily-play")).to_have_text("Review your game")
    expect(ana.locator("#daily-beat")).to_contain_text("beat")
    share = ana.locator("#share-line").input_value()
    assert share.startswith(f"Varaq daily {today().isoformat()}: lost ")
    assert "vs the field" in share
    for card in hands["Ana"]:
        assert card not in share
    shot(ana, "daily-results-1366x657")
    # Bo sees the same board from his side.
    bo = pages["Bo"]
    open_daily(bo, base)
    assert sorted(board_names(bo)) == ["Ana", "Bo"]
    expect(bo.locator("#board-body tr.you td.name")).to_contain_text("Bo")
    for ctx in contexts:
        ctx.close()
    assert not console.unexpected(), console.unexpected()


def test_a_guest_plays_uncounted_and_comes_back_to_the_same_try(
    browser: Browser, console: Console, daily_server: Server,
) -> None:
    ctx = open_context(browser, console, viewport=PHONE, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    open_daily(page, daily_server.base)
    expect(page.locator("#daily-who")).to_contain_text("not counted")
    shot(page, "daily-guest-360x640")
    table = play_from_daily_page(page)
    expect(page.locator("#daily-label")).to_contain_text("Daily ")
    shot(page, "daily-guest-table-360x640")
    open_daily(page, daily_server.base)
    expect(page.locator("#daily-play")).to_have_text("Continue your try")
    assert play_from_daily_page(page) == table
    ctx.close()
    assert not console.unexpected(), console.unexpected()


def test_yesterdays_daily_plays_and_is_marked_late(
    browser: Browser, console: Console, daily_server: Server,
) -> None:
    base = daily_server.base
    yesterday = today() - timedelta(days=1)
    ctx = open_context(browser, console, viewport=DESKTOP, color_scheme="dark")
    sign_up(ctx, base, "Cai")
    page = ctx.new_page()
    open_daily(page, base)
    if yesterday.month != today().month:
        page.locator("#month-prev").click()
    day = page.locator(f'#calendar a[href="/daily/{yesterday.isoformat()}"]')
    day.click()
    page.wait_for_url(f"**/daily/{yesterday.isoformat()}")
    page.wait_for_selector("body[data-ready]")
    expect(page.locator("#daily-kicker")).to_contain_text("played late")
    expect(page.locator("#daily-play")).to_have_text("Play this daily")
    play_from_daily_page(page)
    expect(page.locator("#daily-label")).to_contain_text(
        f"Daily {yesterday.isoformat()} · played late")
    open_daily(page, base, f"/daily/{yesterday.isoformat()}")
    expect(page.locator("#daily-play")).to_have_text("Continue your try")
    cell = page.locator(f'#calendar a[href="/daily/{yesterday.isoformat()}"]')
    expect(cell).to_have_attribute("aria-label", f"{_long(yesterday)}: in play, late; "
                                   "0 players ranked")
    shot(page, "daily-late-1366x657-dark")
    ctx.close()
    assert not console.unexpected(), console.unexpected()


def _long(day: date) -> str:
    """The calendar's words for a day, as the page writes them (en-GB, UTC)."""
    return f"{day.strftime('%A')}, {day.day} {day.strftime('%B %Y')}"


@pytest.mark.parametrize(("size", "scheme"), [
    (DESKTOP, "light"), (DESKTOP, "dark"), (PHONE, "light"), (PHONE, "dark"),
])
def test_the_daily_page_fits_without_sideways_scrolling(
    browser: Browser, console: Console, daily_server: Server, size: dict[str, int], scheme: str,
) -> None:
    ctx = open_context(browser, console, viewport=size, color_scheme=scheme,
                       is_mobile=size is PHONE, has_touch=size is PHONE)
    page = ctx.new_page()
    open_daily(page, daily_server.base)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= size["width"]
    for selector in ("#daily-play", "#month-prev", "#theme-toggle"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"]
    shot(page, f"daily-{size['width']}x{size['height']}-{scheme}")
    ctx.close()
    assert not console.unexpected(), console.unexpected()



#: The page's own guide, heading by heading, in order.
GUIDE = ["How to play", "Spades and nil", "Scoring", "Controls", "Questions and answers"]


@pytest.mark.parametrize("size", [DESKTOP, PHONE])
def test_the_guide_is_on_the_page_closed_and_quotes_the_dailys_own_rules(
    browser: Browser, console: Console, daily_server: Server, size: dict[str, int],
) -> None:
    ctx = open_context(browser, console, viewport=size, is_mobile=size is PHONE,
                       has_touch=size is PHONE)
    page = ctx.new_page()
    open_daily(page, daily_server.base)
    guide = page.locator("#daily-guide details")
    expect(page.locator("#daily-guide summary")).to_have_text(GUIDE)
    # Closed at first, so the day's card and its Play button stay in the first screen.
    for i in range(len(GUIDE)):
        assert guide.nth(i).get_attribute("open") is None
    play = page.locator("#daily-play").bounding_box()
    assert play is not None and play["y"] + play["height"] <= size["height"]
    # The rules are the daily preset's, in the rules page's words: nothing typed twice.
    rules = Rules.named(DAILY_RULES)
    words = {s["heading"]: s["text"] for s in describe(rules)["sections"]}
    for target in page.locator(".rule-target").all():
        expect(target).to_have_text(str(rules.target))
    page.locator("#guide-scoring summary").click()
    expect(page.locator('#guide-scoring [data-rule="Scoring"]')).to_have_text(words["Scoring"])
    expect(page.locator('#guide-scoring [data-rule="Bags"]')).to_have_text(words["Bags"])
    page.locator("#guide-spades summary").click()
    expect(page.locator('#guide-spades [data-rule="Nil"]')).to_have_text(words["Nil"])
    expect(page.locator('#guide-spades [data-rule="Blind nil"]')).to_have_text(
        words["Blind nil"])
    page.locator("#guide-how summary").click()
    expect(page.locator('#guide-how [data-rule="Winning"]')).to_contain_text(
        f"reach {rules.target} points")
    for heading in ("guide-controls", "guide-questions"):
        page.locator(f"#{heading} summary").click()
        expect(page.locator(f"#{heading}")).to_have_attribute("open", "")
    expect(page.locator("#guide-questions dt")).to_have_count(5)
    # Every section open, the page still fits the width of the window.
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= size["width"]
    shot(page, f"daily-guide-{size['width']}x{size['height']}")
    # And closed again with a click, as any heading.
    page.locator("#guide-scoring summary").click()
    expect(page.locator('#guide-scoring [data-rule="Bags"]')).to_be_hidden()
    ctx.close()
    assert not console.unexpected(), console.unexpected()


#: Each weekday name's column and the columns of the month's first seven days.
WEEKDAY_COLUMNS_JS = """() => {
  const mid = (e) => { const r = e.getBoundingClientRect(); return (r.left + r.right) / 2; };
  const names = [...document.querySelectorAll('#calendar-weekdays li')];
  const days = [...document.querySelectorAll('#calendar li.day')].slice(0, 7);
  return {
    names: names.map((e) => e.textContent.trim()),
    nameMids: names.map(mid),
    dayMids: days.map(mid),
    dayLabels: days.map((e) => e.querySelector('a').getAttribute('aria-label')),
  };
}"""


@pytest.mark.parametrize("size", [DESKTOP, PHONE])
def test_the_calendar_has_a_weekday_row_over_its_columns(
    browser: Browser, console: Console, daily_server: Server, size: dict[str, int],
) -> None:
    ctx = open_context(browser, console, viewport=size, is_mobile=size is PHONE,
                       has_touch=size is PHONE)
    page = ctx.new_page()
    open_daily(page, daily_server.base)
    row = page.locator("#calendar-weekdays")
    expect(row).to_be_visible()
    expect(page.locator("#calendar li.day").first).to_be_visible()
    found = page.evaluate(WEEKDAY_COLUMNS_JS)
    assert found["names"] == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    # Every day sits under the name of its own weekday.
    for mid, label in zip(found["dayMids"], found["dayLabels"], strict=True):
        weekday = label.split(",")[0][:3]
        column = found["names"].index(weekday)
        assert abs(mid - found["nameMids"][column]) < 2, (label, mid, found["nameMids"])
    font = row.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")
    assert font >= 12
    shot(page, f"daily-weekdays-{size['width']}x{size['height']}")
    ctx.close()
    assert not console.unexpected(), console.unexpected()
