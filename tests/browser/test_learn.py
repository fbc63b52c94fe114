"""The lessons and the hand review in Debian's Chromium, against ``varaq serve``.

Every lesson is played the way a learner plays it: a wrong move first (a tap on a dimmed card,
and a legal card or bid that is not the right one), each answered in the lesson's words, then
the right move; the list of lessons then shows it done.  The lesson table fits the window at
1366×657 (light) and 360×640 (dark) without scrolling, and the hand review of a record flags
the card that cost the contract.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import httpx2
import pytest
from harness import Server, shot
from playwright.sync_api import Page, expect
from table_driver import open_game, visible_point
from test_rules_pages import sized_page, sticking_out

from varaq import Game
from varaq.actions import action_text
from varaq.bots.normal import NormalBot
from varaq.cards import card_text, cards_of
from varaq.lessons import LESSONS, Lesson, attempt, start
from varaq.record import to_record
from varaq.review import HandFacts, par, plan, review_hand

pytestmark = pytest.mark.browser

#: Each test taking ``sized_page`` runs at 1366×657 (light) and on a 360×640 phone (dark).
__all__ = ["sized_page"]


def moves(lesson: Lesson) -> tuple[str | None, str | None]:
    """A card the engine refuses here (dimmed), and a legal move that is not right."""
    view = start(lesson).view(lesson.learner)
    legal = [action_text(a) for a in view.legal]
    dimmed = [card_text(c) for c in cards_of(view.hand) if c not in view.legal]
    wrong = [a for a in legal if a not in lesson.right]
    return (dimmed[0] if dimmed else None), (wrong[0] if wrong else None)


def open_lesson(page: Page, server: Server, lesson: Lesson) -> None:
    page.goto(f"{server.base}/learn/{lesson.id}")
    expect(page.locator("#lesson-title")).to_have_text(lesson.title)
    to_table = page.locator("#to-table")
    if to_table.is_visible():  # phones read the lesson first, then go to the table
        to_table.click()
    expect(page.locator("#felt")).to_be_visible()


def act(page: Page, action: str, *, touch: bool = False) -> None:
    """Make a move as a learner does: a button for a choice or a bid, a card in the fan."""
    if action in ("blind nil", "look"):
        page.locator(f'#blind-panel [data-action="{action}"]').click()
        return
    if action == "nil" or action.startswith("bid "):
        page.locator(f'#bid-grid button[data-action="{action}"]').click()
        return
    card = page.locator(f'#hand button[data-card="{action}"]')
    x, y = visible_point(card)
    if not touch:
        page.mouse.click(x, y)
        return
    page.touchscreen.tap(x, y)
    if card.get_attribute("aria-disabled") == "false" and "lifted" in (
        card.get_attribute("class") or ""
    ):
        page.touchscreen.tap(*visible_point(card))  # a first tap lifts, the second plays


def answered(page: Page, text: str) -> None:
    expect(page.locator("#feedback")).to_be_visible()
    expect(page.locator("#feedback")).to_contain_text(text)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_a_lesson_answers_a_wrong_move_then_a_right_one(
    page: Page, server: Server, lesson: Lesson
) -> None:
    open_lesson(page, server, lesson)
    expect(page.locator("#lesson-task")).to_have_text(lesson.task)
    dimmed, wrong = moves(lesson)
    assert dimmed or wrong
    if dimmed:
        # A dimmed card is refused in the lesson's words, and the table does not change.
        act(page, dimmed)
        answered(page, attempt(lesson, dimmed).text)
        expect(page.locator("#feedback .verdict")).to_have_text("Not allowed")
        expect(page.locator(f'#hand button[data-card="{dimmed}"]')).to_be_attached()
        expect(page.locator("#try-again")).to_be_hidden()
    if wrong:
        act(page, wrong)
        answered(page, attempt(lesson, wrong).text)
        expect(page.locator("#feedback .verdict")).to_have_text("Not this time")
        page.locator("#try-again").click()
        expect(page.locator("#feedback")).to_be_hidden()
    for i, right in enumerate(lesson.right[: lesson.moves]):
        act(page, right)
        answer = attempt(lesson, right, done=list(lesson.right[:i]))
        answered(page, answer.text)
    expect(page.locator("#next-lesson")).to_be_visible()
    for claims in lesson.after.get(lesson.right[0], {}).get("totals", {}).items():
        side, total = claims
        box = "#side-us" if side == "NS" else "#side-them"
        expect(page.locator(f"{box} .side-total")).to_have_text(
            str(total) if total >= 0 else f"−{-total}")
    page.goto(f"{server.base}/learn")
    done = page.locator("#lesson-list li.done a")
    expect(done).to_have_text(lesson.title)


def test_lessons_on_a_phone_with_a_finger(phone_page: Page, server: Server) -> None:
    page = phone_page
    lesson = next(x for x in LESSONS if x.id == "follow-suit")
    page.goto(f"{server.base}/learn/{lesson.id}")
    # The lesson's words come first, over the table; then the table.
    expect(page.locator("#lesson-text")).to_be_visible()
    page.locator("#to-table").click()
    expect(page.locator("#lesson-text")).to_be_hidden()
    act(page, "KS", touch=True)
    answered(page, "You hold hearts, so you must play one")
    act(page, "AH", touch=True)
    answered(page, "your A♥ is the highest heart")
    expect(page.locator(".trick-slot.winner")).to_have_count(1)
    page.locator("#read-again").click()
    expect(page.locator("#lesson-text")).to_be_visible()


@pytest.mark.parametrize("lesson_id", ["follow-suit", "bidding", "bags", "blind-nil", "jokers",
                                      "set-nil"])
def test_the_lesson_table_fits_without_scrolling(
    sized_page: tuple[str, Page], server: Server, lesson_id: str
) -> None:
    size, page = sized_page
    lesson = next(x for x in LESSONS if x.id == lesson_id)
    open_lesson(page, server, lesson)
    right = lesson.right[0]
    act(page, right, touch=size == "phone")
    expect(page.locator("#feedback")).to_be_visible()
    sizes = page.evaluate("""() => [document.documentElement.scrollWidth,
      document.documentElement.clientWidth, document.documentElement.scrollHeight,
      document.documentElement.clientHeight]""")
    assert sizes[0] <= sizes[1] and sizes[2] <= sizes[3], sizes
    for selector in ("#felt", "#hand", "#lesson-task", "#feedback", "#next-lesson"):
        box = page.locator(selector).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= sizes[3] + 1, selector
    assert not sticking_out(page), sticking_out(page)
    if lesson_id == "bidding":  # every line of the count shows, without scrolling its panel
        count = page.locator("#count-panel")
        expect(count).to_be_visible()
        heights = count.evaluate("panel => [panel.scrollHeight, panel.clientHeight]")
        assert heights[0] <= heights[1] + 1, heights
    shot(page, f"learn-{lesson_id}-{size}")


def test_the_lesson_list_fits_and_offers_the_next_lesson(
    sized_page: tuple[str, Page], server: Server
) -> None:
    size, page = sized_page
    page.goto(f"{server.base}/learn")
    expect(page.locator("#lesson-list li")).to_have_count(len(LESSONS))
    expect(page.locator("#lesson-start")).to_have_attribute("href", "/learn/follow-suit")
    page.evaluate("localStorage.setItem('varaq-lessons', JSON.stringify(['follow-suit', 'cut']))")
    page.reload()
    expect(page.locator("#lesson-progress")).to_have_text(f"2 of {len(LESSONS)} lessons done.")
    expect(page.locator("#lesson-start")).to_have_attribute("href", "/learn/spades-broken")
    assert not sticking_out(page), sticking_out(page)
    shot(page, f"learn-list-{size}")


def test_learn_is_one_click_from_home_and_the_rules(page: Page, server: Server) -> None:
    page.goto(f"{server.base}/")
    page.get_by_role("link", name="Learn to play").click()
    expect(page.get_by_role("heading", name="Learn Spades")).to_be_visible()
    page.goto(f"{server.base}/rules")
    page.get_by_role("link", name="Learn", exact=True).click()
    expect(page.get_by_role("heading", name="Learn Spades")).to_be_visible()


def test_the_tables_more_menu_opens_learn(
    sized_page: tuple[str, Page], server: Server
) -> None:
    size, page = sized_page
    game_id = server.new_game(level="easy", rules="classic")
    open_game(page, server.base, game_id)
    more = page.locator("#more-button")
    if size == "phone":  # a wide table lays the menu's buttons out with the others
        expect(more).to_be_visible()
        more.click()
        expect(more).to_have_attribute("aria-expanded", "true")
    else:
        expect(more).to_be_hidden()
    link = page.locator("#more-menu").get_by_role("link", name="Learn", exact=True)
    with page.context.expect_page() as opened:
        link.click()
    learn = opened.value
    expect(learn).to_have_url(f"{server.base}/learn")
    expect(learn.get_by_role("heading", name="Learn Spades")).to_be_visible()
    expect(learn.locator("#lesson-list li")).to_have_count(len(LESSONS))


# -- the hand review ----------------------------------------------------------------------------


SCORING = next(x for x in LESSONS if x.id == "scoring")


def scoring_record(action: str) -> dict[str, Any]:
    return to_record(attempt(SCORING, action).game)


def test_a_reviewed_record_flags_the_card_that_cost_the_contract(
    sized_page: tuple[str, Page], server: Server, tmp_path: Path
) -> None:
    size, page = sized_page
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(scoring_record("3C")))
    page.goto(f"{server.base}/review")
    page.set_input_files("#record-file", str(path))
    expect(page.locator("#review-title")).to_have_text("Hand 1, dealt by East")
    note = page.locator("#trick-12 .note.double").last
    expect(note).to_contain_text("Playing the 3♣ costs the contract: with the K♣ North-South "
                                 "take 7 of the 7 they bid, now 6.", timeout=120_000)
    expect(page.locator("#trick-12 .review-card.flagged")).to_have_count(2)
    expect(page.locator("#review-result")).to_contain_text("North-South −70")
    page.locator("#trick-12 summary").click()
    expect(page.locator("#trick-12 .holding")).to_have_count(4)
    # The whole review, the bids' judgements included (their table once widened a phone's page).
    expect(page.locator("#progress-words")).to_have_text("Every card is priced.",
                                                         timeout=120_000)
    assert not sticking_out(page), sticking_out(page)
    shot(page, f"review-{size}")


def test_a_review_shows_par_and_its_progress_reaches_done(
    page: Page, server: Server, tmp_path: Path
) -> None:
    # The hand of the scoring lesson with the right card (another hand than the test above,
    # so that neither finds the other's review in the server's cache).
    facts = HandFacts.from_game(attempt(SCORING, "KC").game, 1)
    ns, ew = par(facts)
    steps = len(plan(facts))
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(scoring_record("KC")))
    page.goto(f"{server.base}/review")
    page.set_input_files("#record-file", str(path))
    expect(page.locator("#review-par")).to_contain_text("Par: being worked out…")
    # The solver goes back to the first trick, then works out par: the page says both.
    expect(page.locator("#review-par")).to_contain_text(
        f"Par, all four playing perfectly from the first lead: North-South {ns}, East-West "
        f"{ew}. At the table: North-South took 7, East-West 6.", timeout=120_000)
    expect(page.locator("#progress-words")).to_have_text("Every card is priced.")
    bar = page.locator("#progress-bar")
    expect(bar).to_have_js_property("max", steps)
    expect(bar).to_have_js_property("value", steps)
    expect(page.locator("#review-progress")).not_to_have_class(re.compile(r"\brunning\b"))
    expect(page.locator(".review-trick")).to_have_count(13)
    expect(page.locator("#review-stopped")).to_be_hidden()


def nil_game() -> Game:
    """A classic hand in which someone bids nil, bid and played by Normal (seeded)."""
    for seed in range(100):
        game = Game("classic", seed=seed, dealer=seed % 4)
        game.deal()
        bot = NormalBot()
        rng = random.Random(seed)
        while game.phase_name in ("bid", "play"):
            game.apply(bot.act(game.view(game.turn), rng))
        if 0 in game.log[-1].bids:
            return game
    raise AssertionError("no nil in 100 deals")


def test_a_review_with_a_nil_shows_the_verdict_and_the_tricks_under_each_card(
    page: Page, server: Server, tmp_path: Path
) -> None:
    game = nil_game()
    expected = review_hand(HandFacts.from_game(game, 1), bids=False).to_json()
    path = tmp_path / "nil.json"
    path.write_text(json.dumps(to_record(game)))
    page.goto(f"{server.base}/review")
    page.set_input_files("#record-file", str(path))
    expect(page.locator("#progress-words")).to_have_text("Every card is priced.",
                                                         timeout=120_000)
    captions = page.locator("#trick-1 .review-card small")
    first = [card["caption"] for card in expected["tricks"][0]["cards"]]
    expect(captions).to_have_text(first)
    assert all(" · " in text and "nil" in text and " for " in text for text in first)
    # The summary counts the flags the cards show, and says how the nil's cards are judged.
    flags = page.locator("#review-flags")
    expect(flags).to_contain_text(f"{expected['nil_cards']} cards played while a nil was "
                                  "alive are judged on the nil")
    shown = page.locator(".review-card .flag")
    expect(shown).to_have_count(expected["flags"]["?"] + expected["flags"]["??"])
    shot(page, "review-nil")


def test_a_blind_nil_pass_back_is_reviewed_with_the_cards_where_they_went(
    page: Page, server: Server
) -> None:
    # N passes straight back the 2♥ that S gave it; S plays it in the last trick.  The page
    # shows the hands from the server's replay, so the 2♥ is South's before the last trick.
    path = Path(__file__).resolve().parents[2] / "examples" / "blind-nil-pass-back.json"
    page.goto(f"{server.base}/review")
    page.set_input_files("#record-file", str(path))
    expect(page.locator("#review-title")).to_have_text("Hand 1, dealt by West")
    expect(page.locator("#progress-words")).to_have_text("Every card is priced.",
                                                         timeout=150_000)
    page.locator("#trick-13 summary").click()
    holdings = page.locator("#trick-13 .holding")
    expect(holdings).to_have_count(4)
    expect(holdings.filter(has_text="South")).to_contain_text("♥ 2")
    expect(holdings.filter(has_text="North")).not_to_contain_text("♥")


def test_a_record_that_is_not_json_is_refused_in_one_line(
    page: Page, server: Server, tmp_path: Path
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a record")
    page.goto(f"{server.base}/review")
    page.set_input_files("#record-file", str(path))
    expect(page.locator("#review-error")).to_have_text(
        "notes.txt is not a game record: it is not JSON.")


def play_out_through_the_api(server: Server, game_id: str) -> None:
    """South plays its first legal action until the first hand is over (the bots at pace 0)."""
    with httpx2.Client(base_url=server.base, timeout=20) as client:
        for _ in range(200):
            state = client.get(f"/api/games/{game_id}").json()
            view = state["view"]
            if view["phase"] in ("deal", "over"):
                return
            if not view["legal"]:
                continue
            choice = "look" if "look" in view["legal"] else (
                "bid 3" if "bid 3" in view["legal"] else view["legal"][0])
            answer = client.post(f"/api/games/{game_id}/actions",
                                 json={"action": choice, "version": state["version"]})
            assert answer.status_code in (200, 409), answer.text
    raise AssertionError("the hand did not finish")


def test_the_hand_summary_opens_the_review_of_that_hand(page: Page, server: Server) -> None:
    game_id = server.new_game(level="easy", rules="varaq", seed=21)
    play_out_through_the_api(server, game_id)
    page.goto(f"{server.base}/play/{game_id}?fast")
    link = page.locator("#review-link")
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", f"/review?table={game_id}&hand=1")
    with page.context.expect_page() as opened:
        link.click()
    review = opened.value
    expect(review.locator("#review-title")).to_contain_text("Hand 1, dealt by")
    expect(review.locator("#review-bids tr")).to_have_count(5, timeout=150_000)
    expect(review.locator(".review-trick")).to_have_count(13)


def test_a_signed_in_learners_progress_follows_the_account(page: Page, server: Server) -> None:
    page.goto(f"{server.base}/learn")
    page.evaluate("localStorage.setItem('varaq-lessons', JSON.stringify(['cut']))")
    answer = page.request.post(f"{server.base}/api/account/signup",
                               data={"name": "Pupil", "password": "spades are trumps"})
    assert answer.status == 201, answer.text()
    page.request.post(f"{server.base}/api/lessons/follow-suit/try", data={"action": "AH"})
    page.reload()
    # Both the lesson finished on the account and the one this browser knew are done.
    expect(page.locator("#lesson-list li.done a")).to_have_text(["Follow suit", "Cut with a spade"])
    expect(page.locator("#lesson-progress")).to_have_text(f"2 of {len(LESSONS)} lessons done.")
    page.wait_for_function("""async () => {
      const doc = await (await fetch('/api/lessons')).json();
      return doc.done.includes('cut');
    }""")
