"""The double-dummy solver against a plain minimax driven by the engine itself.

The brute force knows nothing of the solver's tricks (no table, no equivalent cards, no
ordering): it asks the engine for legal cards and lets the engine decide who wins each trick, so
agreement on many random endgames checks both the search and the solver's reading of the rules.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deal_helpers import random_holdings
from varaq import Game
from varaq.cards import parse_card, parse_hand
from varaq.engine import PLAY
from varaq.events import TrickResult
from varaq.rules import Rules
from varaq.solver import (
    Solver,
    SolverLimit,
    card_values,
    game_card_values,
    solve,
    solve_game,
)


def _endgame(rules: Rules, hands: list[int], leader: int, trick: list[int], broken: bool) -> Game:
    """An engine game placed in the middle of the play with the given holdings."""
    g = Game(rules, seed=0, dealer=(leader - 1) & 3)
    left = max(h.bit_count() for h in hands)
    g.phase = PLAY
    g.bids = [3, 3, 3, 3]
    g.hands = list(hands)
    g.leader = leader
    g.trick = list(trick)
    g.turn = (leader + len(trick)) & 3
    g.broken = broken
    g.tricks = [TrickResult(0, (0, 0, 0, 0), 0)] * (13 - left)
    return g


def _brute(g: Game, side: int) -> int:
    """Tricks ``side`` takes from here with best play: full minimax over the engine."""
    if g.phase != PLAY:
        return 0
    before = g.taken[side] + g.taken[side + 2]
    maximising = (g.turn & 1) == side
    values = []
    for card in g.legal_actions():
        child = g.copy()
        child.apply(card)
        got = child.taken[side] + child.taken[side + 2] - before
        values.append(got + _brute(child, side))
    return max(values) if maximising else min(values)


def _random_endgame(rng: random.Random, jokers: bool, cards: int) -> tuple[Rules, Game]:
    rules = Rules.named("classic").with_options(jokers=jokers)
    hands, leader, trick = random_holdings(rng, cards, jokers)
    # Keep the trick legal enough to mean something: it only needs a led suit.
    broken = rng.random() < 0.5 or any(c >= 39 for c in trick)
    return rules, _endgame(rules, hands, leader, trick, broken)


@pytest.mark.parametrize("jokers", [False, True])
@pytest.mark.parametrize("cards", [2, 3, 4])
def test_solver_agrees_with_brute_force_on_random_endgames(jokers: bool, cards: int) -> None:
    rng = random.Random(1000 * cards + jokers)
    rounds = {2: 120, 3: 60, 4: 12}[cards]
    # One table for every endgame as well: its keys must keep deals with different cards apart.
    shared = {side: Solver(side, jokers=jokers) for side in (0, 1)}
    for _ in range(rounds):
        _, g = _random_endgame(rng, jokers, cards)
        for side in (0, 1):
            expected = _brute(g, side)
            result = solve_game(g, side)
            assert result.tricks == expected, (g.hands, g.trick, g.leader, side)
            assert shared[side].value(g.hands, g.leader, g.trick, g.broken) == expected
            # The best card really achieves the value.
            child = g.copy()
            child.apply(result.best_card)
            won = child.taken[side] + child.taken[side + 2]
            assert won + _brute(child, side) == expected


@pytest.mark.parametrize("jokers", [False, True])
def test_card_values_price_every_legal_card(jokers: bool) -> None:
    rng = random.Random(7 + jokers)
    for _ in range(25):
        _, g = _random_endgame(rng, jokers, 3)
        side = g.turn & 1
        values = game_card_values(g)
        assert sorted(values) == sorted(g.legal_actions())
        for card, value in values.items():
            child = g.copy()
            child.apply(card)
            won = child.taken[side] + child.taken[side + 2]
            assert value == won + _brute(child, side)


def test_spades_cannot_be_led_before_broken_unless_only_spades() -> None:
    # N holds AS AH; unbroken, N must lead the heart and E cuts it; broken, N draws E's trump.
    hands = [parse_hand("AS AH"), parse_hand("2S 3D"), parse_hand("4D 5D"), parse_hand("6D 7D")]
    assert solve(hands, leader=0, broken=False, side=0).tricks == 1
    assert solve(hands, leader=0, broken=True, side=0).tricks == 2
    # Holding only spades, the leader may lead one although spades are not broken.
    only = [parse_hand("AS KS"), parse_hand("2H 3H"), parse_hand("QS JS"), parse_hand("4H 5H")]
    assert solve(only, leader=0, broken=False, side=0).tricks == 2


def test_big_joker_beats_little_joker_beats_two_of_spades() -> None:
    hands = [parse_hand("BJ"), parse_hand("LJ"), parse_hand("2S"), parse_hand("AS")]
    for leader in range(4):
        r = solve(hands, leader=leader, broken=True, rules=True, side=0)
        assert r.tricks == 1
    # Without the big joker, the little joker wins over the 2S (which is above the ace).
    hands = [parse_hand("3S"), parse_hand("LJ"), parse_hand("2S"), parse_hand("AS")]
    assert solve(hands, leader=0, broken=True, rules=True, side=1).tricks == 1


def test_two_clubs_opening_lead_is_forced_only_at_the_first_trick() -> None:
    # The 2♣ lead gives West the club trick and the lead: West's 3♦ then catches North's A♥
    # with no heart led, and East's 4♦ takes it.  Free to lead, North cashes the A♥ first.
    hands = [parse_hand("2C AH"), parse_hand("3C 4D"), parse_hand("4C 2H"), parse_hand("5C 3D")]
    forced = solve(hands, leader=0, broken=False, side=0, first_trick_two_clubs=True)
    assert forced.best_card == parse_card("2C")
    assert forced.tricks == 0
    free = solve(hands, leader=0, broken=False, side=0)
    assert (free.tricks, free.best_card) == (1, parse_card("AH"))
    assert card_values(hands, 0, (), False, side=0, first_trick_two_clubs=True) == {
        parse_card("2C"): 0}
    assert card_values(hands, 0, (), False, side=0) == {parse_card("2C"): 0, parse_card("AH"): 1}
    # Once the trick has a card the rule has nothing to say: East may follow with either club.
    after = [parse_hand("AH"), parse_hand("2C AC"), parse_hand("4C 2H"), parse_hand("5C 3D")]
    values = card_values(after, 0, [parse_card("3C")], False, side=1, first_trick_two_clubs=True)
    assert set(values) == {parse_card("2C"), parse_card("AC")}


def test_nil_question_counts_one_seat() -> None:
    # E bid nil holding the 9H; the 9H is higher than every other heart, so E cannot duck.
    hands = [parse_hand("2H 3C"), parse_hand("9H 2C"), parse_hand("3H 4C"), parse_hand("4H 5C")]
    nil_breaker = Solver(0, counted=[False, True, False, False])
    assert nil_breaker.at_least(hands, 0, (), True, 1)
    # Give E a lower heart to duck with and the nil is safe.
    hands[1] = parse_hand("2D 2C")
    hands[0] = parse_hand("9H 3C")
    assert not Solver(0, counted=[False, True, False, False]).at_least(hands, 0, (), True, 1)


def test_nil_defence_solver_is_the_nil_question() -> None:
    # The named constructor asks the same question for any seat: the opponents count its tricks.
    for seat in range(4):
        defence = Solver.nil_defence(seat, jokers=True, node_limit=1000)
        assert defence.side == 1 - (seat & 1)
        assert defence.counted == tuple(s == seat for s in range(4))
        assert defence.jokers and defence.node_limit == 1000
    hands = [parse_hand("2H 3C"), parse_hand("9H 2C"), parse_hand("3H 4C"), parse_hand("4H 5C")]
    assert Solver.nil_defence(1).at_least(hands, 0, (), True, 1)


def test_node_limit_stops_a_long_search() -> None:
    g = Game("classic", seed=5)
    g.deal()
    while g.phase_name != "play":
        g.apply(g.legal_actions()[-1 if g.phase_name == "bid" else 0])
    with pytest.raises(SolverLimit):
        solve_game(g, node_limit=50)


def test_card_values_of_all_cards_match_solve() -> None:
    rng = random.Random(99)
    for _ in range(20):
        rules, g = _random_endgame(rng, False, 4)
        values = card_values(g.hands, g.leader, g.trick, g.broken, rules)
        assert max(values.values()) == solve_game(g).tricks


def test_analysis_prices_the_cards_of_a_recorded_hand(tmp_path: Path) -> None:
    import json

    from varaq.analysis import analyse_game
    from varaq.cli import main
    from varaq.record import to_record

    g = Game("varaq", seed=31)
    rng = random.Random(4)
    g.deal()
    while g.phase_name != "deal":
        actions = g.legal_actions()
        g.apply(actions[len(actions) // 2] if g.phase_name == "bid" else rng.choice(actions))
    results = analyse_game(g, cards=4)
    assert len(results) == 1
    hand = results[0]
    assert hand.solved + hand.nil_positions == 16
    # Random play is bound to throw tricks away; each cost names a better legal card.
    assert hand.costly
    for c in hand.costly:
        assert c.cost >= 1 and c.played != c.best and c.trick >= 10
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(to_record(g)))
    assert main(["analyse", str(path), "--cards", "3"]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["analyse", str(bad)]) == 2


def _alpha_beta(g: Game, side: int, alpha: int, beta: int) -> int:
    """Tricks ``side`` takes from here: minimax over the engine with alpha-beta cut-offs only."""
    if g.phase != PLAY:
        return 0
    before = g.taken[side] + g.taken[side + 2]
    maximising = (g.turn & 1) == side
    best = -1 if maximising else 99
    for card in g.legal_actions():
        child = g.copy()
        child.apply(card)
        got = child.taken[side] + child.taken[side + 2] - before
        value = got + _alpha_beta(child, side, alpha - got, beta - got)
        if maximising:
            best = max(best, value)
            alpha = max(alpha, value)
        else:
            best = min(best, value)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return best


def test_solver_agrees_with_alpha_beta_on_five_card_endgames() -> None:
    rng = random.Random(55)
    shared = {0: Solver(0), 1: Solver(1)}
    for _ in range(4):
        _, g = _random_endgame(rng, rng.random() < 0.5, 5)
        jokers = g.rules.jokers
        for side in (0, 1):
            expected = _alpha_beta(g, side, -1, 99)
            assert solve_game(g, side).tricks == expected
            # A table carried over from other deals (keys squeeze out the played cards) too.
            if not jokers:
                assert shared[side].value(g.hands, g.leader, g.trick, g.broken) == expected


def _brute_seat(g: Game, seat: int, side: int) -> int:
    """Tricks ``seat`` alone takes from here when ``side`` maximises them and the other side
    minimises them: the nil question, by plain minimax over the engine."""
    if g.phase != PLAY:
        return 0
    before = g.taken[seat]
    values = []
    for card in g.legal_actions():
        child = g.copy()
        child.apply(card)
        values.append(child.taken[seat] - before + _brute_seat(child, seat, side))
    return max(values) if (g.turn & 1) == side else min(values)


def test_nil_judgement_of_a_card_agrees_with_brute_force() -> None:
    from varaq.analysis import _nil_cost

    rng = random.Random(17)
    seen = {"set": 0, "escaped": 0, "": 0}
    for _ in range(80):
        _, g = _random_endgame(rng, False, 3)
        nil_seat = rng.randrange(4)
        defence = 1 - (nil_seat & 1)
        solver = Solver.nil_defence(nil_seat)
        could = _brute_seat(g, nil_seat, defence) >= 1
        for card in g.legal_actions():
            child = g.copy()
            child.apply(card)
            can = child.taken[nil_seat] - g.taken[nil_seat] + _brute_seat(
                child, nil_seat, defence) >= 1
            verdict = _nil_cost(solver, g.hands, g.leader, g.trick, g.broken, card, g.turn,
                                nil_seat)
            if (g.turn & 1) == (nil_seat & 1):
                assert verdict == ("set" if can and not could else "")
            else:
                assert verdict == ("escaped" if could and not can else "")
            seen[verdict] += 1
    assert seen["set"] and seen["escaped"]


#: Runs in a fresh interpreter that cannot import the compiled core, as after an install
#: without a C compiler (the module is refused at import, whatever is on disk).
_WITHOUT_THE_CORE = '''
import importlib.abc
import sys


class NoCompiledCore(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "varaq._fastsolver":
            raise ImportError("no compiled core in this interpreter")
        return None


sys.meta_path.insert(0, NoCompiledCore())

from varaq import solver
from varaq.cards import parse_hand

print(solver.default_backend())
print(solver.backend_status()[1])
hands = [parse_hand(h) for h in ("AS AH", "2S 3D", "4D 5D", "6D 7D")]
print(solver.solve(hands, 0, broken=True).tricks, solver.solve(hands, 0, broken=False).tricks)
try:
    solver.Solver(0, backend="c")
except ValueError as e:
    print("refused:", e)
'''


def test_without_the_compiled_core_the_python_search_serves_and_says_so_once() -> None:
    env = {k: v for k, v in os.environ.items() if k != "VARAQ_SOLVER"}
    run = subprocess.run([sys.executable, "-c", _WITHOUT_THE_CORE], capture_output=True,
                         text=True, check=True, env=env, timeout=60)
    missing = "the compiled solver is not built (no C compiler at install time?)"
    assert run.stdout.splitlines() == [
        "python",
        f"pure Python: {missing}",
        "2 1",  # the module docstring's position, solved by the Python search
        f"refused: {missing}",
    ]
    # Two searches, one line: the fallback is told once per process, on the log.
    assert run.stderr.splitlines() == [
        f"varaq: {missing}; the pure Python solver is used (slower)"]


def test_a_build_whose_compiler_fails_goes_on_without_the_core(tmp_path: Path) -> None:
    """setup.py's extension is optional: a compiler that fails makes the build say so in one
    line and carry on (exit 0, no extension), so the install still gives the Python search.

    Only setup.py runs here, with the core's source beside it: the package's own metadata
    (pyproject.toml) needs a newer setuptools than the test environment's, which pip fetches
    into an isolated build, and a test must not reach the network."""
    root = Path(__file__).resolve().parents[1]
    shutil.copy(root / "setup.py", tmp_path)
    (tmp_path / "src" / "varaq").mkdir(parents=True)
    shutil.copy(root / "src" / "varaq" / "_fastsolver.c", tmp_path / "src" / "varaq")
    run = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--build-lib", "lib", "--build-temp", "tmp"],
        cwd=tmp_path, env={**os.environ, "CC": "/bin/false"}, capture_output=True, text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    notices = [line for line in run.stdout.splitlines() if line.startswith("varaq:")]
    # One line, naming the compiler's failure (its wording is setuptools').
    assert len(notices) == 1 and "/bin/false" in notices[0], run.stdout
    assert notices[0].startswith("varaq: the compiled solver was not built (")
    assert notices[0].endswith("); the pure Python one is used")
    assert not [p.name for p in tmp_path.rglob("_fastsolver*") if p.suffix != ".c"]
