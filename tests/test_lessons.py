"""Every lesson says what the engine does: its position is one the rules reach, the cards it
dims are exactly the ones the engine refuses, the trick goes where it says, and the scores it
quotes are the engine's."""

from __future__ import annotations

import random

import pytest

from varaq.actions import action_text, parse_action
from varaq.bots import make_bot
from varaq.bots.advice import count_lines, trick_reasons
from varaq.bots.bidding import estimate_tricks
from varaq.cards import card_text, cards_of
from varaq.lessons import LESSONS, Lesson, LessonError, Setup, SetupError, attempt, build, start
from varaq.phases import PLAY
from varaq.record import load_record, to_record
from varaq.review import HARD_SAMPLES
from varaq.seats import SEAT_LETTERS, SIDE_NAMES, parse_seat
from varaq.solver import Solver, card_values, game_card_values, position_of

BY_ID = {lesson.id: lesson for lesson in LESSONS}


def ids(lessons: list[Lesson]) -> list[str]:
    return [lesson.id for lesson in lessons]


def signed(points: int) -> str:
    """Points as a sentence writes them: +70, −38 (a true minus sign), 0."""
    return f"+{points}" if points > 0 else f"−{-points}" if points < 0 else "0"


def test_lesson_ids_are_unique_and_fit_in_a_url() -> None:
    assert len(BY_ID) == len(LESSONS)
    for lesson in LESSONS:
        assert lesson.id.replace("-", "").isalnum() and lesson.id.islower()


@pytest.mark.parametrize("lesson", LESSONS, ids=ids(list(LESSONS)))
def test_position_is_a_record_the_engine_replays(lesson: Lesson) -> None:
    doc, game = build(lesson.setup, seed=lesson.id)
    again = load_record(doc)
    assert to_record(again) == to_record(game) == doc | {"conceded": None}
    assert game.turn == lesson.learner, "the learner must be the one to act"
    assert game.view(lesson.learner).legal


@pytest.mark.parametrize("lesson", LESSONS, ids=ids(list(LESSONS)))
def test_dimmed_cards_are_exactly_the_ones_the_engine_refuses(lesson: Lesson) -> None:
    game = start(lesson)
    view = game.view(lesson.learner)
    legal = {action_text(a) for a in view.legal}
    if lesson.legal is not None:
        assert legal == set(lesson.legal)
    for card in cards_of(view.hand):
        text = card_text(card)
        answer = attempt(lesson, text)
        assert answer.legal == (text in legal)
        if not answer.legal:
            assert not answer.right
            assert answer.reason, "a refused card comes with the engine's reason"
            assert answer.text == lesson.sentence(text, False, False, answer.reason) and answer.text
            assert answer.game.plays() == game.plays()


@pytest.mark.parametrize("lesson", LESSONS, ids=ids(list(LESSONS)))
def test_right_moves_are_legal_and_judged_right(lesson: Lesson) -> None:
    assert lesson.right
    for text in lesson.right:
        assert action_text(parse_action(text)) == text, "right moves are written as the engine"
        others = [t for t in lesson.right if t != text][: lesson.moves - 1]
        answer = attempt(lesson, text, done=others)
        assert answer.legal and answer.right, text
        assert answer.finished
        assert answer.text and answer.text == lesson.sentence(text, True, True)


@pytest.mark.parametrize("lesson", LESSONS, ids=ids(list(LESSONS)))
def test_every_lesson_has_a_wrong_move_that_says_why(lesson: Lesson) -> None:
    game = start(lesson)
    view = game.view(lesson.learner)
    candidates = [action_text(a) for a in view.legal] + [card_text(c) for c in cards_of(view.hand)]
    wrong = [t for t in candidates if t not in lesson.right]
    assert wrong, "the learner must be able to get it wrong"
    for text in wrong:
        answer = attempt(lesson, text)
        assert not answer.right and not answer.finished
        assert answer.text, f"{text} has no explanation"


@pytest.mark.parametrize(
    ("lesson", "action"),
    [(lesson, action) for lesson in LESSONS for action in lesson.winners],
    ids=[f"{lesson.id}-{action}" for lesson in LESSONS for action in lesson.winners],
)
def test_the_trick_goes_where_the_lesson_says(lesson: Lesson, action: str) -> None:
    before = len(start(lesson).tricks)
    answer = attempt(lesson, action)
    assert len(answer.game.tricks) > before, "the learner's card must finish a trick"
    assert SEAT_LETTERS[answer.game.tricks[before].winner] == lesson.winners[action]


@pytest.mark.parametrize(
    ("lesson", "action"),
    [(lesson, action) for lesson in LESSONS for action in lesson.after],
    ids=[f"{lesson.id}-{action}" for lesson in LESSONS for action in lesson.after],
)
def test_the_scores_quoted_are_the_engines(lesson: Lesson, action: str) -> None:
    claims = lesson.after[action]
    answer = attempt(lesson, action)
    game = answer.game
    assert game.phase != PLAY, "a lesson about the score plays the hand to its end"
    result = game.log[-1].result
    for side, points in claims.get("score", {}).items():
        assert result.score[SIDE_NAMES.index(side)] == points, side
    for side, bags in claims.get("bags", {}).items():
        assert game.bags[SIDE_NAMES.index(side)] == bags, side
    for side, total in claims.get("totals", {}).items():
        assert game.totals[SIDE_NAMES.index(side)] == total, side
    if "match" in claims:
        winner = None if game.winner is None else SIDE_NAMES[game.winner]
        assert winner == claims["match"]
        assert game.is_over == (winner is not None)
    side = SIDE_NAMES[lesson.learner & 1]
    if side in claims.get("score", {}):
        assert signed(claims["score"][side]) in answer.text, "the sentence quotes the score"


def test_the_bidding_count_is_the_bots_own_estimate_in_the_hints_words() -> None:
    lesson = BY_ID["bidding"]
    hand = start(lesson).view(lesson.learner).hand
    estimate = estimate_tricks(hand, False)
    # Line by line the advisor's count, adding up to the estimate the bots bid from.
    assert lesson.count == tuple((card_text(line.card), round(line.tricks, 1), line.words)
                                 for line in count_lines(hand, False) if line.card is not None)
    assert {card for card, _, _ in lesson.count} <= {card_text(c) for c in cards_of(hand)}
    shown = sum(tricks for _, tricks, _ in lesson.count)
    assert f"About {shown:.1f} tricks" in lesson.estimate, "the lines add up to the estimate"
    assert all(words for _, _, words in lesson.count)
    assert lesson.estimate.startswith(f"About {estimate:.1f} tricks: {trick_reasons(hand, False)}.")
    # The K♦ counts as probable and the fourth spade as a long-spade trick, as the bots count.
    assert ("KD", 0.6, "probably a trick: it wins once the A♦ has gone") in lesson.count
    assert [(card, tricks) for card, tricks, words in lesson.count
            if words.startswith("one long-spade trick")] == [("3S", 0.8)]
    # Right: the count's whole tricks, one more for the K♦, one fewer to be safe.
    assert estimate == pytest.approx(4.82)
    assert lesson.right == ("bid 3", "bid 4", "bid 5")
    assert lesson.estimate.endswith(" Bid 4 or 5, or 3 to be safe.")
    assert "about 4.8 tricks" in lesson.wrong_text
    assert "4.8" in lesson.said["bid 2"] and "4.8" in lesson.said["bid 6"]


def test_the_bidding_lessons_right_bids_include_what_normal_and_hard_bid() -> None:
    lesson = BY_ID["bidding"]
    view = start(lesson).view(lesson.learner)
    # Hard with a fixed number of layouts (as the hand review judges bids), so that each seed
    # gives one bid whatever the machine's speed; the layouts differ from seed to seed.
    bots = [make_bot("normal")] + [make_bot("hard", samples=HARD_SAMPLES)] * 4
    for seed, bot in enumerate(bots):
        bid = action_text(bot.act(view, random.Random(seed)))
        assert bid in lesson.right, f"{bot.name} bids {bid}; the lesson calls right {lesson.right}"
        # ... and the lesson says so: a right answer, with the count shown.
        answer = attempt(lesson, bid)
        assert answer.right and answer.text == lesson.right_text


def test_an_exchange_takes_two_right_cards_in_turn() -> None:
    lesson = BY_ID["exchange"]
    first = attempt(lesson, "AS")
    assert first.right and not first.finished
    assert first.game.view(lesson.learner).passing == 1 << parse_action("AS")
    second = attempt(lesson, "AC", done=["AS"])
    assert second.right and second.finished
    # Once the exchange is done, partner holds the aces and play begins.
    assert second.game.phase == PLAY
    assert second.game.hands[0] >> parse_action("AS") & 1
    with pytest.raises(LessonError):
        attempt(lesson, "AC", done=["2C"])
    with pytest.raises(LessonError):
        attempt(lesson, "KH", done=["AS", "AC"])


def test_blind_nil_is_chosen_with_the_cards_face_down() -> None:
    lesson = BY_ID["blind-nil"]
    view = start(lesson).view(lesson.learner)
    assert view.cards_hidden and view.hand == 0
    after = attempt(lesson, "blind nil").game.view(lesson.learner)
    assert after.blind[lesson.learner] and after.hand


def test_a_try_that_is_not_an_action_is_refused_in_one_line() -> None:
    with pytest.raises(LessonError, match="unknown action"):
        attempt(LESSONS[0], "the ace please")


def test_a_setup_that_cannot_be_played_says_why() -> None:
    with pytest.raises(SetupError, match="S holds 12 cards; 13 expected"):
        build(Setup(dealer="S", trick="KH 4H 9H",
                    hands={"S": "AH 7H 2H KS 6S 4S 9C 8C 5C QD JD 4D"}))
    with pytest.raises(SetupError, match="repeat"):
        build(Setup(dealer="S", trick="KH 4H 9H",
                    hands={"S": "KH 7H 2H KS 6S 4S 9C 8C 5C QD JD 4D 3D"}))
    with pytest.raises(SetupError, match="names all four hands"):
        build(Setup(dealer="E", leader="S", taken={"N": 12},
                    hands={"S": "AS"}))
    with pytest.raises(SetupError, match="first trick the leader"):
        build(Setup(dealer="E", leader="N", hands={}))


def test_a_later_position_is_built_the_same_way_every_time() -> None:
    lesson = BY_ID["bags"]
    assert build(lesson.setup, seed="x")[0] == build(lesson.setup, seed="x")[0]


# -- the strategy lessons: what they call right is the best play, by the solver or the score --

#: Strategy lessons judged double dummy: the seat whose nil the play is about, or None when
#: the play is about the learner's side's tricks.
SOLVED = {"lead-aces": None, "make-void": None, "lead-through": None, "keep-cover": "N"}


@pytest.mark.parametrize("lesson_id", sorted(SOLVED))
def test_a_strategy_lessons_right_cards_are_exactly_the_solvers_best(lesson_id: str) -> None:
    lesson = BY_ID[lesson_id]
    game = start(lesson)
    side = lesson.learner & 1
    nil = SOLVED[lesson_id]
    if nil is None:
        # The learner's side's tricks from here after each card: the right ones take the most.
        values = game_card_values(game, side)
        best = max(values.values())
    else:
        # Tricks the defence can force on partner's nil after each card: the right ones, none.
        seat = parse_seat(nil)
        assert game.bids[seat] == 0 and game.taken[seat] == 0, "the nil must be alive"
        solver = Solver(1 - side, counted=[s == seat for s in range(4)])
        hands, leader, trick, broken, _ = position_of(game)
        values = card_values(hands, leader, trick, broken, game.rules, 1 - side, solver=solver)
        best = min(values.values())
        assert best == 0, "the right play must keep the nil safe"
    right = {card_text(c) for c, v in values.items() if v == best}
    assert right == set(lesson.right), values
    assert len(right) < len(values), "some card must be worse, or there is nothing to learn"


def test_the_bags_lesson_is_right_by_the_final_score() -> None:
    lesson = BY_ID["count-bags"]
    side = lesson.learner & 1
    start_margin = start(lesson).totals[side] - start(lesson).totals[1 - side]
    margins = {}
    for text in lesson.legal or ():
        game = attempt(lesson, text).game
        assert game.phase != PLAY
        margins[text] = game.totals[side] - game.totals[1 - side] - start_margin
    best = max(margins.values())
    assert {t for t, m in margins.items() if m == best} == set(lesson.right), margins
    # The right card takes the one bag the side has room for, and no penalty.
    assert attempt(lesson, "KD").game.bags[side] == 9


def test_the_strategy_lessons_tricks_are_the_ones_their_words_describe() -> None:
    # Cash your aces: waiting lets East throw the last diamond away on West's club.
    trick = attempt(BY_ID["lead-aces"], "5C").game.tricks[-1]
    assert [card_text(c) for c in trick.cards] == ["5C", "KC", "QC", "7D"]
    # Lead through strength: West's K♥ has to come out before partner's A♥.
    trick = attempt(BY_ID["lead-through"], "5H").game.tricks[-1]
    assert [card_text(c) for c in trick.cards] == ["5H", "KH", "AH", "6H"]
