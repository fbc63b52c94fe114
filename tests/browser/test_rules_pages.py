"""The rules and help pages and the New game form, in Debian's Chromium against ``varaq serve``.

Each page is opened on a laptop (1366×657, light) and a phone (360×640, dark): its content is
there, nothing sticks out sideways, and a screenshot goes to ``artifacts/screenshots/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from harness import CHROMIUM, Console, Server, shot
from playwright.sync_api import Browser, Page, expect

from conftest import open_context
from varaq.worked_examples import EXAMPLES

pytestmark = pytest.mark.browser

LAPTOP = {"viewport": {"width": 1366, "height": 657}, "color_scheme": "light"}
PHONE = {"viewport": {"width": 360, "height": 640}, "color_scheme": "dark", "is_mobile": True,
         "has_touch": True, "device_scale_factor": 2}
SIZES = {"laptop": LAPTOP, "phone": PHONE}

#: Elements whose right or left edge is outside the window (tables that scroll inside their own
#: box are allowed to be wider than the page).
STICKING_OUT_JS = """() => {
  const root = document.documentElement;
  const width = root.clientWidth;
  const out = [];
  if (root.scrollWidth > width) out.push(`page ${root.scrollWidth}`);
  for (const node of document.querySelectorAll('body *')) {
    if (node.closest('.table-scroll')) continue;
    const box = node.getBoundingClientRect();
    if (box.width && (box.right > width + 1 || box.left < -1)) {
      const where = `${Math.round(box.left)}..${Math.round(box.right)}`;
      out.push(`${node.tagName}.${node.className} ${where}`);
    }
  }
  return out.slice(0, 8);
}"""


@pytest.fixture(params=list(SIZES))
def sized_page(request: pytest.FixtureRequest, browser: Browser, console: Console
               ) -> Iterator[tuple[str, Page]]:
    """A page at each size; the test fails if the page logged an unexpected error."""
    assert CHROMIUM.exists()
    options: dict[str, Any] = SIZES[request.param]
    context = open_context(browser, console, **options)
    yield request.param, context.new_page()
    context.close()
    assert not console.unexpected(), f"console errors: {console.unexpected()}"


def sticking_out(page: Page) -> list[str]:
    found: list[str] = page.evaluate(STICKING_OUT_JS)
    return found


def test_rules_page_teaches_the_game_with_the_engines_examples(
    sized_page: tuple[str, Page], server: Server
) -> None:
    size, page = sized_page
    page.goto(f"{server.base}/rules")
    expect(page.get_by_role("heading", name="How to play Spades")).to_be_visible()
    for heading in ("Bidding", "Playing the tricks", "Scoring, worked out", "Variations",
                    "Glossary"):
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_attached()
    examples = page.locator(".example")
    expect(examples).to_have_count(len(EXAMPLES))
    first = page.locator("#example-contract-made")
    expect(first).to_contain_text("Contract 7 made")
    expect(first.locator(".score-total")).to_contain_text("+71")
    expect(page.locator("#example-blind-nil-refused")).to_contain_text("NS trails by 70")
    options = page.locator("#option-table")
    expect(options).to_contain_text("50 to 5000")
    expect(options).to_contain_text("Blind nil threshold")
    expect(page.locator("#preset-table")).to_contain_text("Daily, to 250")
    expect(page.locator("#preset-table")).not_to_contain_text("Short, to 250")
    # The sample trick is drawn with the table's own cards.
    expect(page.get_by_role("img", name="Two of spades")).to_be_visible()
    for term in ("Book", "Board", "Set", "Bag", "Cut", "Broken", "Boston", "Reneg",
                 "Sandbagging"):
        expect(page.locator(".glossary dt", has_text=term).first).to_be_attached()
    assert not sticking_out(page), sticking_out(page)
    shot(page, f"rules-{size}")


def test_help_page_answers_the_common_questions(
    sized_page: tuple[str, Page], server: Server
) -> None:
    size, page = sized_page
    page.goto(f"{server.base}/help")
    expect(page.get_by_role("heading", name="Help", exact=True)).to_be_visible()
    question = page.get_by_text("Do the computer players cheat?")
    question.click()
    answer = page.locator("details", has=question)
    expect(answer).to_contain_text("its own cards, the bids")
    expect(answer).to_contain_text("imagining many possible")
    expect(page.get_by_text("Can I lead a spade to the first trick?")).to_be_visible()
    expect(page.get_by_text("Can both partners bid nil?")).to_be_visible()
    expect(page.get_by_text("What is sandbagging?")).to_be_visible()
    expect(page.get_by_role("heading", name="Strategy tips")).to_be_visible()
    expect(page.get_by_role("link", name="Play", exact=True)).to_have_attribute("href", "/")
    assert not sticking_out(page), sticking_out(page)
    shot(page, f"help-{size}")


def test_about_page_tells_the_story_and_credits_its_sources(
    sized_page: tuple[str, Page], server: Server
) -> None:
    size, page = sized_page
    # Reached from the home page, the help page and the rules page by a link.
    page.goto(f"{server.base}/")
    page.get_by_role("navigation", name="About the game").get_by_role(
        "link", name="About Spades").click()
    expect(page).to_have_url(f"{server.base}/about")
    page.goto(f"{server.base}/help")
    page.get_by_role("link", name="About Spades").click()
    expect(page).to_have_url(f"{server.base}/about")
    expect(page.get_by_role("heading", name="About Spades", level=1)).to_be_visible()
    for heading in ("Where it came from", "Around the table", "Varaq's rules", "Sources"):
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_attached()
    history = page.locator("#history")
    for words in ("Whist", "Cincinnati", "George Coffin", "between 1937 and 1939",
                  "Soldiers", "college campuses"):
        expect(history).to_contain_text(words)
    culture = page.locator("#culture")
    for words in ("trash talk", "written down", "African American", "Amina S. McIntyre"):
        expect(culture).to_contain_text(words)
    sources = page.locator("#sources li")
    expect(sources).to_have_count(3)
    expect(sources.nth(0)).to_contain_text("John McLeod")
    expect(sources.nth(0)).to_contain_text("Dennis J. Barmore")
    expect(sources.nth(0).get_by_role("link")).to_have_attribute(
        "href", "https://www.pagat.com/auctionwhist/spades.html")
    expect(sources.nth(1)).to_contain_text("Simon Wintle")
    expect(sources.nth(1)).to_contain_text("The World of Playing Cards")
    expect(sources.nth(2)).to_contain_text("American Journal of Play 13 (2021)")
    expect(page.get_by_role("link", name="Play a game")).to_have_attribute("href", "/")
    assert not sticking_out(page), sticking_out(page)
    shot(page, f"about-{size}")
    page.goto(f"{server.base}/rules")
    expect(page.get_by_role("link", name="About Spades")).to_have_attribute("href", "/about")


def test_an_unknown_address_shows_a_page_with_a_way_home(
    sized_page: tuple[str, Page], server: Server, console: Console
) -> None:
    size, page = sized_page
    console.allow(r"status of 404")  # Chromium logs the page's own 404
    response = page.goto(f"{server.base}/no/such/page")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    home = page.get_by_role("link", name="Go to the home page")
    expect(home).to_be_visible()
    assert not sticking_out(page), sticking_out(page)
    shot(page, f"not-found-{size}")
    home.click()
    expect(page).to_have_url(f"{server.base}/")
    # An API address keeps its one-line JSON error.
    api = page.request.get(f"{server.base}/api/no-such-thing")
    assert api.status == 404 and api.json() == {"error": "no such page: /api/no-such-thing"}


def test_rules_page_shows_one_tables_rules_on_top(page: Page, server: Server) -> None:
    spec = quote('{"preset": "classic", "target": 300, "two_clubs_leads": true}')
    page.goto(f"{server.base}/rules?spec={spec}")
    box = page.locator("#this-table")
    expect(box).to_be_visible()
    expect(box).to_contain_text("This table's rules")
    expect(page.locator("#this-table-label")).to_have_text("Custom")
    expect(box.locator(".badges")).to_contain_text("Target 300")
    # Classic's own rules that differ from the default table are badges too.
    for badge in ("Blind nil", "Exchange 2", "Nil tricks do not score", "2♣ leads"):
        expect(box.locator(".badges li", has_text=badge).first).to_be_visible()
    expect(box).to_contain_text("The holder of the 2♣ leads it")
    expect(box).to_contain_text("reach 300 points")


def test_rules_page_with_a_bad_spec_says_why(
    page: Page, server: Server, console: Console
) -> None:
    console.allow(r"status of 400")  # Chromium logs the refused fetch itself
    page.goto(f"{server.base}/rules?spec=poker")
    expect(page.locator("#this-table")).to_contain_text("unknown preset 'poker'")
    expect(page.locator(".example")).to_have_count(len(EXAMPLES))


def open_custom_form(page: Page, server: Server) -> None:
    page.goto(f"{server.base}/?fast")
    page.get_by_role("button", name="New game").click()
    page.get_by_label("Custom table").check()


def test_new_game_form_names_presets_and_takes_its_ranges_from_the_server(
    page: Page, server: Server
) -> None:
    open_custom_form(page, server)
    names = page.locator("#preset-select option").all_inner_texts()
    assert names == ["Varaq", "Classic", "Short, to 300", "Daily, to 250"]
    target = page.get_by_label("Target")
    assert (target.get_attribute("min"), target.get_attribute("max")) == ("50", "5000")
    for label in ("Nil value", "Blind nil value", "Blind nil threshold", "Exchange",
                  "Mercy", "Boston bonus", "Minimum team bid", "Bag limit", "Bag penalty"):
        expect(page.get_by_label(label, exact=True)).to_be_visible()
    page.get_by_label("Preset").select_option(label="Varaq")
    expect(page.get_by_label("Blind nil", exact=True)).not_to_be_checked()
    # A value the server refuses is refused in the form's words, and no game starts.
    target.fill("6000")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#new-game-error")).to_have_text("Target must be between 50 and 5000")
    assert target.get_attribute("aria-invalid") == "true"
    target.fill("275")
    page.get_by_label("Mercy").fill("275")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#new-game-error")).to_have_text("Mercy must be below the target")
    expect(page.locator("#new-game-dialog")).to_be_visible()
    shot(page, "new-game-form-refused")


def test_new_game_form_plays_every_target_and_the_nil_values(
    page: Page, server: Server
) -> None:
    open_custom_form(page, server)
    page.get_by_label("Preset").select_option(label="Classic")
    page.get_by_label("Target").fill("275")
    page.get_by_label("Mercy").fill("-300")
    page.get_by_label("Nil value", exact=True).fill("50")
    page.get_by_label("Blind nil value").fill("300")
    page.get_by_label("Exchange").fill("3")
    shot(page, "new-game-form-custom")
    page.get_by_role("button", name="Deal").click()
    page.wait_for_url("**/play/*")
    game_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    view = server.state(game_id)["view"]
    assert view["label"] == "Custom"
    assert view["rules"] == {"preset": "classic", "target": 275, "nil_value": 50,
                             "blind_nil_value": 300, "exchange": 3, "mercy": -300}
    badges = page.locator("#badges")
    expect(badges).to_contain_text("Custom")
    expect(badges).to_contain_text("Target 275")
    expect(badges).to_contain_text("Nil ±50")
    expect(badges).to_contain_text("Exchange 3")
    expect(badges).to_contain_text("Blind nil ±300")


def test_new_game_starts_the_default_table_and_classic_is_one_choice_away(
    page: Page, server: Server
) -> None:
    page.goto(f"{server.base}/?fast")
    page.get_by_role("button", name="New game").click()
    preset = page.get_by_label("Preset")
    expect(preset).to_have_value("varaq")
    expect(page.locator("#preset-summary")).to_contain_text("nil tricks score")
    page.get_by_label("Easy").check()
    page.get_by_role("button", name="Deal").click()
    page.wait_for_url("**/play/*")
    game_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    view = server.state(game_id)["view"]
    assert view["rules"] == "varaq" and view["badges"] == ["Varaq"]
    expect(page.locator("#badges li")).to_have_text(["Varaq"])
    # Classic, one choice away: its blind nil, exchange and nil scoring are badges.
    page.goto(f"{server.base}/?fast")
    page.get_by_role("button", name="New game").click()
    page.get_by_label("Preset").select_option(label="Classic")
    page.get_by_label("Easy").check()
    page.get_by_role("button", name="Deal").click()
    page.wait_for_url("**/play/*")
    expect(page.locator("#badges li")).to_have_text(
        ["Classic", "Blind nil", "Exchange 2", "Nil tricks do not score"])
    shot(page, "classic-table-badges")
