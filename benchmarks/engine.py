"""Engine speed: Varaq's rules engine against OpenSpiel's C++ Spades, in one run.

Prints ONE JSON document on standard output::

    python benchmarks/engine.py [--seconds 3] [--repeat 5] [--clock wall|cpu] [--rules varaq]
                                [--no-openspiel] [--count N --only varaq|openspiel]

Why this benchmark exists: the Hard computer player samples thousands of layouts and plays them
out, so the engine's speed through its *public* API (``legal_actions``, ``apply``, ``copy``,
``view``) bounds how well Hard can play in its time budget.  OpenSpiel's C++ Spades, driven from
Python, is the yardstick a researcher would reach for; issue 2 asks for at least 1.5x its hands
per second.

Every figure is a rate measured for a fixed wall time (``--seconds``) after a warm-up, and the
median of ``--repeat`` runs is reported (the raw runs are kept beside it).  The Varaq and OpenSpiel
hand loops are run alternately, repeat after repeat, so that a busy machine slows both alike and
the ratio stays meaningful even when the absolute figures wander.

A "hand" is the same work on both sides: a fresh game, the deal, four bids and 52 plays chosen
uniformly at random from the legal actions with a seeded :class:`random.Random`, and the scoring.
OpenSpiel's ``spades`` game is exactly one hand per episode (its ``win_threshold`` and mercy
parameters only shape the returns), so one episode is one hand and no normalisation is needed;
its deal is 52 chance nodes, each sampled from ``chance_outcomes()``.

On a busy machine wall-clock rates wander; ``--clock cpu`` times with the process's own CPU
time instead, and ``--count N --only ENGINE`` plays exactly N hands untimed, for an instruction
counter (``valgrind --tool=callgrind``) whose figure does not depend on the neighbours at all.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from varaq.engine import Game
from varaq.rules import Rules

#: How many prepared positions the micro-benchmarks cycle through: enough to cover every stage
#: of a hand (leads, follows, cuts, bids), few enough to build in a blink.
POSITIONS = 512


# -- timing -------------------------------------------------------------------------------------


#: The clocks ``--clock`` may choose.  ``wall`` is what a user waits for; ``cpu`` counts only
#: the time this process ran, which keeps figures steady on a machine shared with other work.
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def rate(work: Callable[[], int], seconds: float, clock: Callable[[], float]) -> float:
    """Units of work per second: call ``work`` (which returns how many units it did) until
    ``seconds`` have passed on ``clock``.  The clock is read between calls, never inside them,
    so ``work`` should be a batch lasting at least a few milliseconds."""
    done = 0
    start = clock()
    deadline = start + seconds
    while True:
        done += work()
        now = clock()
        if now >= deadline:
            return done / (now - start)


def measure(
    work: Callable[[], int], seconds: float, warmup: float,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    rate(work, warmup, clock)
    return rate(work, seconds, clock)


def summary(runs: list[float]) -> dict[str, Any]:
    return {"median": round(statistics.median(runs), 1), "runs": [round(r, 1) for r in runs]}


# -- Varaq --------------------------------------------------------------------------------------


class VaraqBench:
    """The Varaq workloads, all through the public API a bot or server would use."""

    def __init__(self, rules: Rules, seed: int, positions: int = POSITIONS) -> None:
        self.rules = rules
        self.rng = random.Random(seed)
        self.next_seed = seed * 1_000_003
        self.positions = self._positions(positions)
        self.lines = self._lines(positions // 8)

    def random_hand(self) -> int:
        """One random hand from a new game: deal, four bids, 52 plays, scoring.  Returns the
        number of actions applied (56) so a caller can check the hand really finished."""
        rng = self.rng
        self.next_seed += 1
        game = Game(self.rules, seed=self.next_seed, dealer=rng.randrange(4))
        game.deal()
        choice = rng.choice
        legal_actions = game.legal_actions
        apply = game.apply
        actions = 0
        while game.turn >= 0:
            apply(choice(legal_actions()))
            actions += 1
        if not game.log:
            raise AssertionError("a random hand did not reach its scoring")
        return actions

    def hands(self, batch: int = 20) -> Callable[[], int]:
        def work() -> int:
            for _ in range(batch):
                self.random_hand()
            return batch

        return work

    def _positions(self, count: int) -> list[Game]:
        """Positions spread over whole hands: each is a random point of a random hand, bids
        included (about one in fifteen), so legal_actions/copy/view see the real mix."""
        rng = random.Random(1)
        out: list[Game] = []
        while len(out) < count:
            game = Game(self.rules, seed=rng.randrange(1 << 30), dealer=rng.randrange(4))
            game.deal()
            stop = rng.randrange(56)
            for _ in range(stop):
                game.apply(rng.choice(game.legal_actions()))
            out.append(game)
        return out

    def _lines(self, count: int) -> list[tuple[Game, list[int]]]:
        """Dealt games with a random line of 56 legal actions each, to time ``apply`` alone."""
        rng = random.Random(2)
        out = []
        for _ in range(count):
            start = Game(self.rules, seed=rng.randrange(1 << 30), dealer=rng.randrange(4))
            start.deal()
            game = start.copy()
            line = []
            while game.turn >= 0:
                action = rng.choice(game.legal_actions())
                game.apply(action)
                line.append(action)
            out.append((start, line))
        return out

    def legal_actions(self) -> Callable[[], int]:
        positions = self.positions

        def work() -> int:
            for game in positions:
                game.legal_actions()
            return len(positions)

        return work

    def copy(self) -> Callable[[], int]:
        positions = self.positions

        def work() -> int:
            for game in positions:
                game.copy()
            return len(positions)

        return work

    def view(self) -> Callable[[], int]:
        """The view of the seat to move: what a bot receives before each decision."""
        pairs = [(g, g.turn) for g in self.positions]

        def work() -> int:
            for game, seat in pairs:
                game.view(seat)
            return len(pairs)

        return work

    def apply(self) -> Callable[[], int]:
        """Apply recorded legal lines; the one ``copy()`` per 56 applies is counted in."""
        lines = self.lines

        def work() -> int:
            done = 0
            for start, line in lines:
                apply = start.copy().apply
                for action in line:
                    apply(action)
                done += len(line)
            return done

        return work


# -- OpenSpiel ----------------------------------------------------------------------------------


class OpenSpielBench:
    """The same random hands through OpenSpiel's Python binding of its C++ Spades."""

    def __init__(self, pyspiel: Any, seed: int, positions: int = POSITIONS) -> None:
        self.game = pyspiel.load_game("spades")
        self.rng = random.Random(seed)
        self.positions = self._positions(positions)

    def random_hand(self) -> int:
        """One episode (= one hand): 52 chance nodes for the deal, then 4 bids and 52 plays."""
        rng = self.rng
        choice = rng.choice
        state = self.game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                action, _ = choice(state.chance_outcomes())
            else:
                action = choice(state.legal_actions())
                actions += 1
            state.apply_action(action)
        state.returns()
        return actions

    def hands(self, batch: int = 20) -> Callable[[], int]:
        def work() -> int:
            for _ in range(batch):
                self.random_hand()
            return batch

        return work

    def _positions(self, count: int) -> list[Any]:
        rng = random.Random(1)
        out: list[Any] = []
        while len(out) < count:
            state = self.game.new_initial_state()
            while state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            for _ in range(rng.randrange(56)):
                state.apply_action(rng.choice(state.legal_actions()))
            out.append(state)
        return out

    def legal_actions(self) -> Callable[[], int]:
        positions = self.positions

        def work() -> int:
            for state in positions:
                state.legal_actions()
            return len(positions)

        return work

    def describe(self, pyspiel: Any) -> dict[str, Any]:
        game_type = self.game.get_type()
        defaults = {k: _plain(v) for k, v in game_type.parameter_specification.items()}
        return {
            "version": _version("open_spiel"),
            "game": "spades",
            "parameters": {k: _plain(v) for k, v in self.game.get_parameters().items()},
            "parameter_defaults": defaults,
            "episode": "one hand: 52 chance nodes (the deal), 4 bids, 52 plays, scoring",
            "max_game_length": self.game.max_game_length(),
        }


def _plain(value: Any) -> Any:
    return value if isinstance(value, (bool, int, float, str)) else str(value)


# -- the machine --------------------------------------------------------------------------------


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def machine() -> dict[str, Any]:
    """What a reader needs to compare figures across runs: cores, CPU, Python, and how busy
    the machine was (the load average matters on a shared box)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = []
    return {
        "nproc": usable,
        "cpu_model": _cpu_model(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "load_average": load,
        "varaq_commit": _git_commit(),
    }


# -- main ---------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=3.0,
                   help="wall time of each measured run (default 3)")
    p.add_argument("--repeat", type=int, default=5,
                   help="runs per figure; the median is reported (default 5)")
    p.add_argument("--warmup", type=float, default=None,
                   help="warm-up before each figure (default: a third of --seconds, at most 1)")
    p.add_argument("--rules", default="varaq",
                   help="Varaq preset for the hands (default varaq: nil, no blind nil, like "
                        "OpenSpiel's)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random choices")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="wall (default) or cpu: process time, steadier on a busy machine")
    p.add_argument("--no-openspiel", action="store_true", help="measure Varaq only")
    p.add_argument("--count", type=int, default=None, metavar="N",
                   help="play exactly N random hands with --only's engine, untimed, and exit "
                        "(for instruction counters)")
    p.add_argument("--only", choices=("varaq", "openspiel"), default="varaq",
                   help="the engine --count plays (default varaq)")
    args = p.parse_args(argv)
    if args.seconds <= 0 or args.repeat < 1:
        p.error("--seconds must be positive and --repeat at least 1")
    if args.count is not None and args.count < 0:
        p.error("--count must be 0 or more")
    if args.warmup is None:
        args.warmup = min(1.0, args.seconds / 3)
    return args


def count_hands(
    args: argparse.Namespace, rules: Rules, pyspiel: Any, openspiel_missing: str | None
) -> int:
    """``--count``: play the hands and report what was played, with no clock involved.  Run it
    twice under an instruction counter (N and 0 hands) and divide the difference by N."""
    bench: VaraqBench | OpenSpielBench
    if args.only == "openspiel":
        if pyspiel is None:
            print(json.dumps({"openspiel": None, "openspiel_missing": openspiel_missing}))
            return 0
        bench = OpenSpielBench(pyspiel, args.seed, positions=0)
    else:
        bench = VaraqBench(rules, args.seed, positions=0)
    actions = sum(bench.random_hand() for _ in range(args.count))
    print(json.dumps({"engine": args.only, "hands": args.count, "actions": actions}))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        rules = Rules.from_spec(args.rules)
    except ValueError as exc:
        print(f"engine.py: {exc}", file=sys.stderr)
        return 2

    pyspiel: Any = None
    openspiel_missing = "skipped with --no-openspiel" if args.no_openspiel else None
    if not args.no_openspiel:
        try:
            import pyspiel as _pyspiel  # type: ignore[import-not-found,unused-ignore]

            pyspiel = _pyspiel
        except ImportError as exc:
            openspiel_missing = f"pyspiel is not installed ({exc}); pip install open-spiel"

    if args.count is not None:
        return count_hands(args, rules, pyspiel, openspiel_missing)

    v = VaraqBench(rules, args.seed)
    o = OpenSpielBench(pyspiel, args.seed) if pyspiel is not None else None

    seconds, warmup = args.seconds, args.warmup
    runs: dict[str, list[float]] = {}

    def add(name: str, work: Callable[[], int], first: bool) -> None:
        runs.setdefault(name, []).append(
            measure(work, seconds, warmup if first else 0.2, CLOCKS[args.clock])
        )

    # The hand loops alternate so that a neighbour's burst of work hurts both sides alike.
    for i in range(args.repeat):
        add("varaq.hands_per_s", v.hands(), i == 0)
        if o is not None:
            add("openspiel.hands_per_s", o.hands(), i == 0)
    for i in range(args.repeat):
        add("varaq.legal_actions_per_s", v.legal_actions(), i == 0)
        if o is not None:
            add("openspiel.legal_actions_per_s", o.legal_actions(), i == 0)
    for name, work in (
        ("varaq.copy_per_s", v.copy()),
        ("varaq.apply_per_s", v.apply()),
        ("varaq.view_per_s", v.view()),
    ):
        for i in range(args.repeat):
            add(name, work, i == 0)

    def figure(name: str) -> float:
        return round(statistics.median(runs[name]), 1)

    result: dict[str, Any] = {
        "benchmark": "engine",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join(["python benchmarks/engine.py", *(sys.argv[1:] if argv is None
                                                                 else argv)]),
        "machine": machine(),
        "settings": {
            "seconds": seconds, "repeat": args.repeat, "warmup": warmup, "clock": args.clock,
            "rules": rules.to_spec(), "seed": args.seed, "positions": POSITIONS,
        },
        "varaq": {
            "hands_per_s": figure("varaq.hands_per_s"),
            "legal_actions_per_s": figure("varaq.legal_actions_per_s"),
            "copy_per_s": figure("varaq.copy_per_s"),
            "apply_per_s": figure("varaq.apply_per_s"),
            "view_per_s": figure("varaq.view_per_s"),
        },
        "openspiel": None,
        "ratio": None,
        "runs": {name: summary(values) for name, values in runs.items()},
    }
    if o is not None:
        result["openspiel"] = {
            "hands_per_s": figure("openspiel.hands_per_s"),
            "legal_actions_per_s": figure("openspiel.legal_actions_per_s"),
            **o.describe(pyspiel),
        }
        per_run = [
            a / b for a, b in zip(runs["varaq.hands_per_s"], runs["openspiel.hands_per_s"],
                                  strict=True)
        ]
        result["ratio"] = {
            "hands": round(figure("varaq.hands_per_s") / figure("openspiel.hands_per_s"), 2),
            "hands_per_run": [round(r, 2) for r in per_run],
            "legal_actions": round(
                figure("varaq.legal_actions_per_s") / figure("openspiel.legal_actions_per_s"), 2
            ),
            "goal": 1.5,
        }
    else:
        result["openspiel_missing"] = openspiel_missing
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
