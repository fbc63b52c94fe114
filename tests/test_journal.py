"""The one history: the engine's list of accepted actions, and a table's journal lines built
from it, which rebuild the same game, seats and events."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from varaq.actions import CONCEDE, DEAL_HAND, action_text
from varaq.engine import Game, IllegalAction
from varaq.record import to_record
from varaq.rules import Rules
from varaq.seats import E, N, S, W
from varaq.service.journal import (
    JournalError,
    Line,
    action_line,
    read_line,
    replay,
    write_step,
)
from varaq.service.seating import BOT, Occupant, Seating


def played(seed: int, steps: int, rules: str = "classic") -> tuple[Game, list[str]]:
    """A game after ``steps`` random inputs, and the journal lines a table would store."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed, totals=(0, 120))
    lines: list[str] = []
    for _ in range(steps):
        if game.is_over:
            break
        if game.phase_name == "deal":
            game.deal()
            lines.append("deal")
        else:
            seat = game.turn
            action = rng.choice(game.legal_actions())
            game.apply(action)
            lines.append(action_line(seat, action))
    return game, lines


@pytest.mark.parametrize(("seed", "steps"), [(1, 1), (2, 30), (3, 57), (4, 130), (5, 400)])
def test_a_replayed_journal_is_the_same_game(seed: int, steps: int) -> None:
    game, lines = played(seed, steps)
    done = replay(Game("classic", seed=seed, totals=(0, 120)), Seating.solo(), lines)
    rebuilt = done.game
    assert len(done.steps) == len(lines)
    assert [write_step(step) for step in done.steps] == lines
    for seat in (N, E, S, W):
        assert rebuilt.view(seat) == game.view(seat)
    assert rebuilt.actions == game.actions
    assert to_record(rebuilt) == to_record(game)
    # The seed is kept, so the hands still to come are the same deals.
    while not game.is_over:
        if game.phase_name == "deal":
            assert rebuilt.deal() == game.deal()
            assert rebuilt.hands == game.hands
            break
        action = game.legal_actions()[0]
        assert rebuilt.apply(action) == game.apply(action)


def test_the_games_actions_are_its_whole_history() -> None:
    game, _ = played(9, 300)
    rebuilt = Game("classic", seed=9, totals=(0, 120))
    for action in game.actions:
        rebuilt.push(action)
    assert rebuilt.actions == game.actions and to_record(rebuilt) == to_record(game)
    assert game.actions.count(DEAL_HAND) == game.hand_no + (game.phase_name != "deal")
    copy = game.copy()
    copy.actions.append(DEAL_HAND)
    assert copy.actions != game.actions  # a copy's history is its own


def test_concede_is_in_the_history() -> None:
    game = Game("varaq", seed=3)
    game.deal()
    game.concede(1)
    assert game.actions == [DEAL_HAND, CONCEDE + 1]
    assert action_text(CONCEDE + 1) == "concede EW"
    with pytest.raises(IllegalAction, match="given"):
        Game("varaq").push(97)


@pytest.mark.parametrize("text", [
    "deal", "start", "concede NS", "sit E u7", "sit S guest", "sit W bot", "leave N",
    "N bid 4", "S QS", "W nil", "E blind nil", "N look", "E QS auto", "S 10D", "close",
])
def test_journal_lines_read_and_write_back(text: str) -> None:
    line = read_line(text)
    expected = "S TD" if text == "S 10D" else text
    if line.kind == "act":
        assert action_line(line.seat, line.action, line.auto) == expected
    game = Game("classic", seed=1)
    seating = Seating()
    step = (line.apply(game, seating) if line.kind in ("sit", "leave", "start", "close")
            else None)
    if step is not None:
        assert write_step(step) == expected


@pytest.mark.parametrize("text", [
    "", "dealt", "concede XY", "sit Q u1", "sit E x9", "sit E u", "X bid 4", "N bid 99",
    "N teleport", "leave", "S ZZ auto",
])
def test_bad_journal_lines_are_refused_in_one_line(text: str) -> None:
    with pytest.raises((JournalError, ValueError)) as info:
        read_line(text).apply(Game("classic", seed=1), Seating())
    assert "\n" not in str(info.value)


def test_a_journal_that_does_not_replay_says_where() -> None:
    _, lines = played(7, 10)
    lines[5] = "S ZZ"
    with pytest.raises(JournalError, match=r"journal line 6 \('S ZZ'\) does not replay"):
        replay(Game("classic", seed=7, totals=(0, 120)), Seating.solo(), lines)


def test_seating_lines_change_the_seats() -> None:
    seating = Seating.open_table(host=1)
    game = Game("varaq", seed=1)
    for text in ("sit N u2", "sit E bot", "leave E", "sit E u3", "sit W bot", "start", "deal"):
        read_line(text).apply(game, seating)
    assert seating.seats == [Occupant("person", 2), Occupant("person", 3),
                             Occupant("person", 1), BOT]
    assert seating.started and game.phase_name == "bid"
    assert seating.seat_of(3) == E and seating.people() == [N, E, S]


@given(st.integers(0, 10_000), st.integers(1, 200))
def test_any_played_journal_replays(seed: int, steps: int) -> None:
    game, lines = played(seed, steps, rules="varaq")
    done = replay(Game(Rules.named("varaq"), seed=seed, totals=(0, 120)), Seating.solo(), lines)
    assert done.game.view(S) == game.view(S) and Line("deal").kind == "deal"
