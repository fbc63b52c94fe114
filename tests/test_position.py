"""Position lines (varaq.position) and the ``varaq solve`` command that reads them."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from varaq.cards import JOKER_DECK, STANDARD_DECK, SUIT_OF, TWO_CLUBS, cards_of, parse_card
from varaq.cli import main
from varaq.position import Position, PositionError
from varaq.solver import default_backend, solve

GOOD = "W:AK.2.. 3.AK.. QJ.4.. 54.3.. leader=W broken=1"


def _random_position(rng: random.Random) -> Position:
    jokers = rng.random() < 0.3
    deck = list(cards_of(JOKER_DECK if jokers else STANDARD_DECK))
    rng.shuffle(deck)
    cards = rng.randint(1, 13)
    leader = rng.randrange(4)
    in_trick = rng.randrange(4)
    hands = [0, 0, 0, 0]
    trick: list[int] = []
    pos = 0
    # Deal first, then take each trick card from the hand of the seat that played it, so the
    # trick is legal: a follower plays the led suit when it holds it.
    for i in range(4):
        seat = (leader + i) & 3
        for c in deck[pos:pos + cards]:
            hands[seat] |= 1 << c
        pos += cards
    for i in range(in_trick):
        seat = (leader + i) & 3
        held = list(cards_of(hands[seat]))
        if trick:
            held = [c for c in held if SUIT_OF[c] == SUIT_OF[trick[0]]] or held
        card = rng.choice(held)
        hands[seat] &= ~(1 << card)
        trick.append(card)
    broken = rng.random() < 0.5 or any(c >= 39 for c in trick)
    try:
        return Position((hands[0], hands[1], hands[2], hands[3]), leader, tuple(trick), broken,
                        jokers)
    except PositionError:
        # A spade led before spades were broken by a leader holding other suits: not a position.
        return Position((hands[0], hands[1], hands[2], hands[3]), leader, tuple(trick), True,
                        jokers)


def test_a_position_reads_back_from_its_own_line() -> None:
    rng = random.Random(8)
    for _ in range(300):
        p = _random_position(rng)
        line = p.to_line()
        assert Position.parse(line) == p
        assert Position.parse(line).to_line() == line


def test_the_first_seat_and_the_order_of_options_do_not_matter() -> None:
    a = Position.parse(GOOD)
    b = Position.parse("N:3.AK.. QJ.4.. 54.3.. AK.2.. broken=1 leader=w")
    assert a == b
    assert a.turn == 3 and a.tricks_left == 3


def test_jokers_go_in_the_spade_group_in_trump_order() -> None:
    p = Position.parse("N:BJ2.A.. LJA.K.. 3K.Q.. 45.J.. jokers=1 leader=N broken=1")
    assert p.hands[0] == (1 << parse_card("BJ")) | (1 << parse_card("2S")) | (
        1 << parse_card("AH"))
    assert p.to_line().startswith("N:BJ2.A.. LJA.K.. K3.Q.. 54.J..")


@pytest.mark.parametrize(("line", "reason"), [
    ("", "empty line"),
    ("AK.2.. 3.AK.. QJ.4.. 54.3..", "starts with the first hand's seat"),
    ("X:AK.2.. 3.AK.. QJ.4.. 54.3..", "unknown seat"),
    ("N:AK.2.. 3.AK.. QJ.4..", "four hands, found 3"),
    ("N:AK.2. 3.AK.. QJ.4.. 54.3..", "needs four suits"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.3X..", "'X' is not a rank"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.2..", "2H appears twice"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.3.. colour=red", "unknown option"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.3.. broken=yes", "broken must be 0 or 1"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.3.. broken=1 broken=1", "given twice"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.3.. trick=KS", "KS appears twice"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.3.. trick=ZZ", "trick: unknown card"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54...", "W holds 2 cards, expected 3"),
    ("N:K.2.. 3.AK.. QJ.4.. 54.3.. trick=AS", "spade was led before spades were broken"),
    ("N:K.2.. 3.AK.. QJ.4.. 54.3.. trick=AS,6S,7S,8S", "at most 3 cards"),
    ("N:.2.. 3.K.. QJ... 5... leader=W trick=AH,TC broken=1", "still holds that suit"),
    ("N:BJ.2.. 3.AK.. QJ.4.. 54.3..", "joker BJ without jokers=1"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.3.. jokers=1", "2H is not in the joker deck"),
    ("N:AK.2.. 3.AK.. QJ.4.. 54.3.. two_clubs=1", "13 cards each"),
    ("N:... ... ... ...", "holds no card"),
])
def test_a_bad_line_is_refused_with_its_reason(line: str, reason: str) -> None:
    with pytest.raises(PositionError, match=reason):
        Position.parse(line)


def test_a_position_becomes_a_game_that_plays_on_by_the_rules() -> None:
    p = Position.parse("W:AK... 3.AK.. QJ.4.. 54.3.. leader=W trick=2H")
    g = p.to_game()
    assert g.turn == p.turn == 0
    # North must follow the heart lead.
    assert sorted(g.legal_actions()) == sorted(parse_card(c) for c in ("AH", "KH"))
    values = p.values()
    assert sorted(values) == sorted(g.legal_actions())


def test_the_two_clubs_opening_lead_is_the_only_card() -> None:
    rng = random.Random(3)
    deck = list(cards_of(STANDARD_DECK))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[k * 13:(k + 1) * 13]) for k in range(4)]
    holder = next(s for s in range(4) if hands[s] >> TWO_CLUBS & 1)
    p = Position((hands[0], hands[1], hands[2], hands[3]), holder, two_clubs=True)
    assert Position.parse(p.to_line()) == p
    assert list(p.values()) == [TWO_CLUBS]


# -- the command -----------------------------------------------------------------------------


def test_solve_prints_one_json_answer_per_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "positions.txt"
    path.write_text(f"# a comment\n\n{GOOD}\nW:AK... 3.AK.. QJ.4.. 54.3.. leader=W trick=2H\n")
    assert main(["solve", str(path)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [a["line"] for a in out] == [3, 4]
    first = out[0]
    assert first["leader"] == first["turn"] == "W"
    assert first["tricks"] == max(first["cards"].values())
    assert set(first["cards"]) == {"AS", "KS", "2H"}
    p = Position.parse(GOOD)
    assert first["tricks"] == solve(list(p.hands), p.leader, (), p.broken).tricks
    assert out[1]["turn"] == "N" and set(out[1]["cards"]) == {"AH", "KH"}


def test_solve_reports_bad_lines_and_still_answers_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "positions.txt"
    path.write_text(f"N:A... 2... 3...\n{GOOD}\nN:AK.2.. 3.AK.. QJ.4.. 54.3.. broken=2\n")
    assert main(["solve", str(path)]) == 2
    captured = capsys.readouterr()
    assert [json.loads(x)["line"] for x in captured.out.splitlines()] == [2]
    errors = captured.err.strip().splitlines()
    assert errors[0] == "line 1: a position needs four hands, found 3"
    assert errors[1].startswith("line 3: broken must be 0 or 1")
    assert "Traceback" not in captured.err


def test_solve_reads_standard_input_and_refuses_a_missing_file(
    tmp_path: Path,
) -> None:
    cmd = [sys.executable, "-m", "varaq.cli", "solve", "-"]
    done = subprocess.run(cmd, input=GOOD + "\n", capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tricks"] >= 1
    missing = subprocess.run([sys.executable, "-m", "varaq.cli", "solve",
                              str(tmp_path / "none.txt")],
                             capture_output=True, text=True, check=False)
    assert missing.returncode == 2
    assert len(missing.stderr.strip().splitlines()) == 1 and "cannot read" in missing.stderr


def test_solve_version_says_which_search_is_used(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--version"]) == 0
    out = capsys.readouterr().out
    assert ("compiled core" in out) == (default_backend() == "c")


def test_the_python_search_can_be_forced() -> None:
    env_run = subprocess.run(
        [sys.executable, "-c", "from varaq.solver import default_backend, Solver;"
         "print(default_backend(), Solver(0).backend)"],
        capture_output=True, text=True, check=True, env={**_env(), "VARAQ_SOLVER": "python"},
    )
    assert env_run.stdout.split() == ["python", "python"]
    with pytest.raises(ValueError, match="unknown solver backend"):
        solve([1, 2, 4, 8], 0, backend="fortran")


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)
