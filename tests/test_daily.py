"""The daily's pure parts: the keyed seed, deals that do not depend on earlier play, the field
and the leaderboard's arithmetic (ties included), the share line, and a daily's record."""

from __future__ import annotations

import json
from datetime import date
from fractions import Fraction

import pytest

from varaq import Game
from varaq.actions import bid
from varaq.bots.normal import choose_bid, choose_play
from varaq.cards import hand_text
from varaq.daily import (
    DAILY_RULES,
    FIRST_DAY,
    DailyError,
    Progress,
    Result,
    Try,
    beaten_percent,
    check_playable,
    daily_record,
    daily_seed,
    duplicate,
    field_averages,
    histogram,
    parse_day,
    parse_month,
    share_line,
    signed,
    standings,
)
from varaq.engine import BIDDING, DEAL, PLAY
from varaq.record import to_record
from varaq.seats import S

DAY = date(2026, 12, 1)
SECRET = b"a server's secret, long enough"


def daily_game(secret: bytes = SECRET, day: date = DAY) -> Game:
    return Game(DAILY_RULES, seed=daily_seed(secret, day))


def deals(game: Game, hands: int) -> list[tuple[int, ...]]:
    """The first ``hands`` deals, every hand played by the Normal policy."""
    out = []
    for _ in range(hands):
        game.deal()
        out.append(tuple(game.dealt))
        play_out(game, south_bid=None)
    return out


def play_out(game: Game, south_bid: int | None) -> None:
    """Finish the hand: Normal everywhere, except South bids ``south_bid`` when given."""
    while game.phase in (BIDDING, PLAY):
        view = game.view(game.turn)
        if game.phase == BIDDING:
            action = bid(south_bid) if game.turn == S and south_bid is not None else (
                choose_bid(view).action)
        else:
            action = choose_play(view).action
        game.apply(action)


# -- the keyed seed ---------------------------------------------------------------------------


def test_the_same_date_and_secret_deal_the_same_cards_hand_by_hand() -> None:
    assert deals(daily_game(), 3) == deals(daily_game(), 3)


def test_another_date_or_another_secret_deals_other_cards() -> None:
    first = deals(daily_game(), 1)
    assert deals(daily_game(day=date(2026, 12, 2)), 1) != first
    assert deals(daily_game(secret=b"another server's secret"), 1) != first


def test_the_seed_is_a_keyed_hash_not_the_date() -> None:
    seed = daily_seed(SECRET, DAY)
    assert len(seed) == 64 and int(seed, 16) >= 0
    assert DAY.isoformat() not in seed
    with pytest.raises(DailyError, match="secret"):
        daily_seed(b"", DAY)


def test_hand_3_is_the_same_deal_whether_hand_2_was_made_or_set() -> None:
    made, set_ = daily_game(), daily_game()
    for game, south_bid in ((made, 1), (set_, 13)):
        game.deal()
        play_out(game, south_bid=None)
        game.deal()
        play_out(game, south_bid=south_bid)
    assert made.history[1].made[0] is True
    assert set_.history[1].made[0] is False
    assert made.totals != set_.totals
    assert made.phase == set_.phase == DEAL
    made.deal()
    set_.deal()
    assert made.dealt == set_.dealt and made.dealer == set_.dealer


# -- dates ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "2026-1-01", "20261201", "2026-W48-2", "2026-12-01T00:00", " 2026-12-01", "２０２６-12-01",
    "", "x" * 5000, None, 20261201,
])
def test_a_date_is_written_yyyy_mm_dd_and_nothing_else(text: object) -> None:
    with pytest.raises(DailyError) as caught:
        parse_day(text)
    assert "\n" not in str(caught.value)


def test_a_date_not_on_the_calendar_says_so() -> None:
    with pytest.raises(DailyError, match="not a date on the calendar"):
        parse_day("2026-02-30")
    assert parse_day("2028-02-29") == date(2028, 2, 29)
    assert parse_month("2026-11") == (2026, 11)
    with pytest.raises(DailyError):
        parse_month("2026-13")


def test_tomorrows_daily_is_not_out_and_none_precedes_the_first() -> None:
    check_playable(DAY, DAY)
    check_playable(FIRST_DAY, DAY)
    with pytest.raises(DailyError, match="not out yet"):
        check_playable(date(2026, 12, 2), DAY)
    with pytest.raises(DailyError, match="begin"):
        check_playable(date(2025, 12, 31), DAY)


# -- the field and the leaderboard ------------------------------------------------------------


def a_try(key: str, *hands: int, totals: tuple[int, int] = (0, 0), finished: bool = True,
          counted: bool = True, late: bool = False, person: bool = True) -> Try:
    return Try(key, key.title(), hands, totals, finished, True if finished else None, counted,
               late, person)


FIELD = [
    a_try("ana", 100, 50, -20, totals=(130, 90)),
    a_try("bo", 60, 70, 30, totals=(160, 120)),
    a_try("cai", 80, 30, totals=(110, 250)),
    a_try("lee", 40, 40, 40, 40, counted=False, late=True, totals=(160, 100)),
    a_try("guest", 200, counted=False, person=False, finished=False),
]


def test_the_field_is_every_signed_in_try_that_reached_the_hand() -> None:
    # The guest's 200 is not in it: a guest can try again and again.
    assert field_averages(FIELD) == [
        Fraction(70), Fraction(95, 2), Fraction(50, 3), Fraction(40),
    ]


def test_each_hand_is_your_points_against_the_field_average() -> None:
    averages = field_averages(FIELD)
    assert duplicate((100, 50, -20), averages) == [30, Fraction(5, 2), Fraction(-110, 3)]
    assert duplicate((0, 0, 0, 0, 10), averages)[4] == 0  # nobody to compare with


def test_on_each_hand_the_fields_comparisons_add_up_to_zero() -> None:
    averages = field_averages(FIELD)
    field = [t for t in FIELD if t.person]
    for k in range(len(averages)):
        assert sum(duplicate(t.hands, averages)[k] for t in field if len(t.hands) > k) == 0


def test_the_leaderboard_ranks_counted_finished_tries_by_their_total() -> None:
    board = standings(FIELD)
    assert [(s.entry.key, s.rank) for s in board.ranked] == [("bo", 1), ("ana", 2), ("cai", 3)]
    assert board.ranked[0].total == -10 + Fraction(45, 2) + Fraction(40, 3)
    assert board.ranked[2].total == Fraction(-15, 2)
    # Late and unfinished tries are compared, never ranked.
    assert [(s.entry.key, s.rank) for s in board.others] == [("lee", None), ("guest", None)]
    assert board.find("lee") is not None and board.find("lee").total == Fraction(-85, 6)


def test_tied_totals_share_a_rank_and_the_next_rank_skips() -> None:
    tries = [
        a_try("ana", 50, totals=(300, 100)), a_try("bo", 50, totals=(260, 200)),
        a_try("cai", 80), a_try("dee", 10),
    ]
    board = standings(tries)
    assert [(s.entry.key, s.rank) for s in board.ranked] == [
        ("cai", 1), ("ana", 2), ("bo", 2), ("dee", 4),
    ]
    # A tie is not a win: Ana beat Dee only, one of three.
    assert board.beaten(board.ranked[1]) == 33
    assert board.beaten(board.ranked[0]) == 100
    assert board.beaten(board.ranked[3]) == 0


def test_you_beat_a_share_rounded_down_so_100_means_everyone() -> None:
    assert beaten_percent(Fraction(5), [Fraction(1)] * 199 + [Fraction(9)]) == 99
    assert beaten_percent(Fraction(5), [Fraction(5), Fraction(4), Fraction(6)]) == 33
    assert beaten_percent(Fraction(5), []) is None


def test_a_guest_is_compared_with_the_field_without_joining_it() -> None:
    board = standings(FIELD)
    guest = board.compare(FIELD[4])
    assert guest.total == 130 and guest.rank is None
    assert board.beaten(guest) == 100  # against the three ranked players


def test_the_distribution_counts_every_ranked_total_once() -> None:
    totals = [Fraction(n) for n in (-40, -3, 0, 0, 7, 12, 30, 55)]
    bins = histogram(totals, bins=4)
    assert sum(b["count"] for b in bins) == len(totals)
    assert bins[0]["low"] == -40 and bins[-1]["high"] == 55
    assert histogram([Fraction(3), Fraction(3)]) == [{"low": 3, "high": 3, "count": 2}]
    assert histogram([]) == []


# -- the share line ---------------------------------------------------------------------------


def test_the_share_line_says_the_result_and_the_field_in_one_line() -> None:
    won = Result(totals=(263, 190), hands=4, won=True)
    assert share_line(DAY, won, Fraction(38)) == (
        "Varaq daily 2026-12-01: won 263–190 in 4 hands, +38 vs the field"
    )
    lost = Result(totals=(-40, 251), hands=1, won=False, conceded=True, late=True)
    assert share_line(DAY, lost, Fraction(-23, 2)) == (
        "Varaq daily 2026-12-01 (played late): lost −40–251 in 1 hand (conceded), −12 vs the field"
    )
    assert share_line(DAY, won, None).endswith("in 4 hands")
    behind = Result(totals=(104, -119), hands=2, won=False)
    assert "lost 104 to −119 in 2 hands" in share_line(DAY, behind, None)


def test_the_share_line_holds_no_card() -> None:
    game = daily_game()
    game.deal()
    line = share_line(DAY, Result((263, 190), 4, True), Fraction(1, 3))
    for seat in range(4):
        for card in hand_text(game.dealt[seat]).split():
            assert card not in line.split()


def test_a_comparison_rounds_halves_away_from_zero_and_shows_its_sign() -> None:
    assert [signed(Fraction(n, 2)) for n in (-3, -1, 0, 1, 77)] == ["−2", "−1", "±0", "+1", "+39"]
    assert signed(Fraction(-1, 3)) == "±0"


# -- a daily's record -------------------------------------------------------------------------


def test_a_conceded_daily_keeps_the_unfinished_hand_as_south_saw_it() -> None:
    game = daily_game()
    game.deal()
    while game.phase == BIDDING:
        game.apply(choose_bid(game.view(game.turn)).action)
    game.apply(choose_play(game.view(game.turn)).action)
    game.concede(0)
    doc = daily_record(game, S)
    text = json.dumps(doc)
    assert list(doc["hands"][-1]["deal"]) == ["S"]
    for seat in (0, 1, 3):
        assert hand_text(game.dealt[seat]) not in text
    assert doc["conceded"] == "NS" and doc["partial"] is True
    assert Progress.of(game) == Progress((), (0, 0), True, False, True)


def test_a_finished_daily_record_is_the_ordinary_one() -> None:
    game = daily_game()
    for _ in range(2):
        game.deal()
        play_out(game, south_bid=None)
    assert daily_record(game, S) == to_record(game, S)
    progress = Progress.of(game)
    assert progress.hands == tuple(h.score[0] for h in game.history)
    assert progress.finished is False and progress.won is None
