"""How fast ``varaq replay`` checks a long record; prints ONE JSON document.

    python benchmarks/replay.py [--hands 10000] [--players normal|random] [--repeat 5]
                                [--before REV|DIR] [--keep FILE] [--match FILE] [--cold]
                                [--no-engine]

Issue 7 asks that a 10,000-hand record replay at 5,000 hands a second or more, *process start
included*: what a person waits for after typing ``varaq replay match.json --json``.  Issue 17
asks for at least twice the hands a second of a plain pure-Python checker of the same record,
process start included: ``benchmarks/plain_checker.py``, which shares no code with Varaq.  So
this script

1. plays one long classic match (both sides starting far below zero, so that it lasts
   ``--hands`` hands) with four seeded Normal players (or uniformly random legal actions), and
   writes its record;
2. times, for the working tree, the plain checker and, with ``--before``, another version of
   the code, side by side and interleaved so that all see the same neighbours on a shared
   machine:

   - **process**: ``varaq replay RECORD --json`` (its console script) as a whole process, from
     ``fork`` to exit, its output captured; in wall time, and in the CPU time it used (which
     leaves out waiting for a core on a shared machine);
   - **start**: the same command on a record with no hands, the cost of starting Python and
     importing what ``replay`` needs;
   - for the plain checker, ``python benchmarks/plain_checker.py RECORD`` in the same two ways
     (it must print the same scores), and the ratio of its time to each version's: the
     medians' ratio, and the median of the ratios within each round;
   - **in process**: ``varaq.replay.run`` in an already started interpreter (reading the file,
     checking every card through the engine, writing the JSON to memory), wall and CPU;

3. and, for scale, the engine alone re-applying the same actions as integers in this process
   (wall and CPU): the floor that checking a record through the engine can approach.

On a machine shared with other work the wall times wander with the neighbours' load; the CPU
times (what the process itself ran) are the steadier figures, and the goal is judged on both.

Every time is the median of ``--repeat`` runs (the minimum is beside it).  Children run with
bytecode caching on (in a temporary ``PYTHONPYCACHEPREFIX``), as an installed package has it,
after one warm-up run each; ``--cold`` turns caching off, so every start compiles the package.
``--before`` takes a git revision (exported with ``git archive`` into a temporary directory) or a
directory holding ``src/varaq``; both versions replay the same record and must print the same
JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # the working tree's varaq, not an installed one

from engine import machine  # noqa: E402  (benchmarks/engine.py: cores, CPU, load, commit)
from varaq import Game, Rules  # noqa: E402
from varaq.bots import make_bot  # noqa: E402
from varaq.engine import DEAL, OVER  # noqa: E402
from varaq.record import to_record  # noqa: E402

GOAL_HANDS_PER_SECOND = 5000
#: Issue 17: ``varaq replay`` against the plain checker, hands a second, process start included.
GOAL_RATIO_VS_PLAIN = 2.0
PLAIN_CHECKER = Path(__file__).resolve().parent / "plain_checker.py"
#: What the ``varaq`` command that pip installs runs (its console script, less the ``.exe``
#: trim): timing ``python -m varaq.cli`` instead would add ``runpy``, which no one typing
#: ``varaq replay`` pays for.
VARAQ_SCRIPT = "import sys; from varaq.cli import main; sys.exit(main())"
#: Where both sides start the long match: far enough below 0 that 10,000 hands never end it.
START_TOTAL = -900_000_000

#: Run inside a child interpreter: ``varaq.replay.run`` on the record, ``repeat`` times, the
#: output kept in memory; prints each run's wall and CPU seconds as a JSON list of pairs.
_IN_PROCESS = """
import argparse, io, json, sys, time
from contextlib import redirect_stdout
from varaq.replay import run
path, repeat = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(repeat):
    out = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    with redirect_stdout(out):
        status = run(argparse.Namespace(file=path, json=True))
    times.append((time.perf_counter() - start, time.process_time() - cpu))
    assert status == 0, "the record did not replay"
print(json.dumps(times))
"""


# -- the record ---------------------------------------------------------------------------------


def play_match(hands: int, players: str, seed: int) -> tuple[Game, list[Any]]:
    """A classic match of exactly ``hands`` hands, and every action in order (a deal is the
    tuple ``("deal", hands)``), so the engine can be timed on the same actions alone.

    The target is capped at 5,000 points, so a match lasts this long by starting both sides
    far below zero (a record's ``start``): it plays exactly as classic from 0-0 would, the
    trailing side bidding blind nil whenever it may, and no side comes near the target."""
    rules = Rules.named("classic")
    game = Game(rules, seed=f"{seed}:replay", dealer=0, totals=(START_TOTAL, START_TOTAL))
    rng = random.Random(seed)
    rngs = [random.Random(f"{seed}:{s}") for s in range(4)]
    bot = make_bot("normal") if players == "normal" else None
    actions: list[Any] = []
    while game.hand_no < hands:
        if game.phase == DEAL:
            game.deal()
            actions.append(("deal", game.dealt))
            continue
        if game.phase == OVER:
            raise SystemExit("the match ended early: start it lower")
        if bot is None:
            action = rng.choice(game.legal_actions())
        else:
            action = bot.act(game.view(game.turn), rngs[game.turn])
        game.apply(action)
        actions.append(action)
    return game, actions


def cached_match(
    path: Path | None, hands: int, players: str, seed: int
) -> tuple[Game, list[Any]]:
    """:func:`play_match`, or the same match kept in ``path`` by an earlier run."""
    key = (hands, players, seed)
    if path is not None and path.exists():
        kept_key, game, actions = pickle.loads(path.read_bytes())
        if kept_key == key:
            # Played again from its actions: a match kept by older code may lack slots the
            # engine has gained since (the actions and the rules are what stay the same).
            again = Game(Rules.from_spec(game.rules.to_spec()), seed=game.seed,
                         dealer=game.first_dealer, totals=game.start_totals)
            for action in actions:
                if type(action) is tuple:
                    again.deal(hands=action[1])
                else:
                    again.apply(action)
            return again, actions
    game, actions = play_match(hands, players, seed)
    if path is not None:
        path.write_bytes(pickle.dumps((key, game, actions)))
    return game, actions


def engine_seconds(game: Game, actions: list[Any]) -> tuple[float, float]:
    """Wall and CPU seconds for the engine alone to re-apply ``actions`` from the start."""
    again = Game(game.rules, seed=game.seed, dealer=game.first_dealer, totals=game.start_totals)
    apply = again.apply
    start, cpu = time.perf_counter(), time.process_time()
    for action in actions:
        if type(action) is tuple:
            again.deal(hands=action[1])
        else:
            apply(action)
    elapsed = time.perf_counter() - start, time.process_time() - cpu
    assert again.totals == game.totals
    return elapsed


# -- versions of the code -------------------------------------------------------------------------


def source_tree(before: str, workdir: Path) -> Path:
    """The ``src`` directory of ``before``: a directory holding ``src/varaq`` as it is, or a git
    revision of this repository exported into ``workdir``."""
    given = Path(before)
    if (given / "src" / "varaq").is_dir():
        return given / "src"
    target = workdir / "before"
    target.mkdir()
    archive = subprocess.run(
        ["git", "archive", before, "src"], cwd=ROOT, capture_output=True, timeout=60,
    )
    if archive.returncode:
        raise SystemExit(f"--before {before}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target / "src"


def child_env(src: Path, cache: Path | None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(src))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_seconds(
    env: dict[str, str], record: Path, plain: bool = False
) -> tuple[float, float, bytes]:
    """Wall time and CPU time of ``varaq replay RECORD --json`` (with ``plain``, of the plain
    checker) as a whole process, and what it printed.  CPU time leaves out the waits for a
    core the neighbours hold."""
    if plain:
        command = [sys.executable, str(PLAIN_CHECKER), str(record)]
    else:
        command = [sys.executable, "-c", VARAQ_SCRIPT, "replay", str(record), "--json"]
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, timeout=600)
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"replay failed: {done.stderr.decode().strip()}")
    return elapsed, _children_cpu() - cpu, done.stdout


def in_process_seconds(
    env: dict[str, str], record: Path, repeat: int
) -> list[tuple[float, float]]:
    done = subprocess.run(
        [sys.executable, "-c", _IN_PROCESS, str(record), str(repeat)],
        env=env, capture_output=True, timeout=600,
    )
    if done.returncode:
        raise SystemExit(f"in-process replay failed: {done.stderr.decode().strip()}")
    return [(wall, cpu) for wall, cpu in json.loads(done.stdout)]


def figures(seconds: list[float], hands: int | None) -> dict[str, Any]:
    median = statistics.median(seconds)
    out: dict[str, Any] = {
        "median_s": round(median, 4),
        "min_s": round(min(seconds), 4),
        "runs_s": [round(s, 4) for s in seconds],
    }
    if hands:
        out["hands_per_s"] = round(hands / median)
    return out


# -- main -----------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=10_000, help="hands in the match (10000)")
    p.add_argument("--players", choices=("normal", "random"), default="normal",
                   help="who plays the match: four Normal players, or random legal actions")
    p.add_argument("--seed", type=int, default=1, help="seed of the match (1)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs of each figure (5)")
    p.add_argument("--before", metavar="REV|DIR",
                   help="also time this version of the code, side by side (a git revision, or "
                        "a directory with src/varaq)")
    p.add_argument("--keep", metavar="FILE", type=Path,
                   help="also write the record here, to look at or replay it later")
    p.add_argument("--match", metavar="FILE", type=Path,
                   help="keep the played match here (a pickle) and reuse it on the next run "
                        "with the same --hands, --players and --seed: playing it is the slow "
                        "part on a busy machine")
    p.add_argument("--no-engine", action="store_true",
                   help="leave out step 3, the engine alone (slow on a crowded machine)")
    p.add_argument("--cold", action="store_true",
                   help="no bytecode cache: every process compiles the package as it starts")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="varaq-replay-bench-") as tmp:
        work = Path(tmp)
        record = work / "match.json"
        started = time.perf_counter()
        game, actions = cached_match(args.match, args.hands, args.players, args.seed)
        made_in = time.perf_counter() - started
        text = json.dumps(to_record(game))
        record.write_text(text)
        if args.keep:
            args.keep.write_text(text)
        empty = work / "empty.json"
        empty.write_text(json.dumps({"format": "varaq-record/1", "rules": "classic",
                                     "hands": []}))
        print(f"match of {args.hands} hands played in {made_in:.1f} s", file=sys.stderr)

        cache = None if args.cold else work / "pycache"
        versions: dict[str, dict[str, str]] = {
            "after": child_env(ROOT / "src", cache)
        }
        if args.before:
            versions = {"before": child_env(source_tree(args.before, work), cache), **versions}
        outputs: dict[str, bytes] = {}
        timings: dict[str, dict[str, list[float]]] = {
            name: {"process": [], "process_cpu": [], "start": [], "in_process": [],
                   "in_process_cpu": []}
            for name in versions
        }
        for name, env in versions.items():  # warm-up: fills the bytecode cache
            outputs[name] = process_seconds(env, record)[2]
        if len(set(outputs.values())) != 1:
            raise SystemExit("the versions print different JSON for the same record")
        plain_env = child_env(ROOT / "src", cache)
        if json.loads(process_seconds(plain_env, record, plain=True)[2]) != json.loads(
            outputs["after"]
        ):
            raise SystemExit("the plain checker and varaq replay disagree on the scores")
        plain: dict[str, list[float]] = {"process": [], "process_cpu": [], "start": []}
        for round_no in range(args.repeat):
            print(f"round {round_no + 1} of {args.repeat}", file=sys.stderr)
            for name, env in versions.items():
                wall, cpu, _ = process_seconds(env, record)
                timings[name]["process"].append(wall)
                timings[name]["process_cpu"].append(cpu)
            wall, cpu, _ = process_seconds(plain_env, record, plain=True)
            plain["process"].append(wall)
            plain["process_cpu"].append(cpu)
            for name, env in versions.items():
                timings[name]["start"].append(process_seconds(env, empty)[0])
            plain["start"].append(process_seconds(plain_env, empty, plain=True)[0])
            for name, env in versions.items():
                for wall, cpu in in_process_seconds(env, record, 1):
                    timings[name]["in_process"].append(wall)
                    timings[name]["in_process_cpu"].append(cpu)
        engine = [] if args.no_engine else [
            engine_seconds(game, actions) for _ in range(args.repeat)
        ]

    hands = args.hands
    result: dict[str, Any] = {
        "benchmark": "replay",
        "record": {
            "hands": hands,
            "players": args.players,
            "rules": game.rules.to_spec(),
            "seed": args.seed,
            "bytes": len(text.encode()),
            "actions": len(actions),
            "blind_nils": sum(sum(log.blind) for log in game.log),
        },
        "bytecode_cache": not args.cold,
        "repeat": args.repeat,
        "goal_hands_per_s": GOAL_HANDS_PER_SECOND,
        "goal_ratio_vs_plain": GOAL_RATIO_VS_PLAIN,
    }
    for name in versions:
        t = timings[name]
        result[name] = {
            "source": args.before if name == "before" else "working tree",
            "process": figures(t["process"], hands),
            "process_cpu": figures(t["process_cpu"], hands),
            "start": figures(t["start"], None),
            "in_process": figures(t["in_process"], hands),
            "in_process_cpu": figures(t["in_process_cpu"], hands),
        }
        result[name]["goal_met"] = {
            clock: result[name][key]["hands_per_s"] >= GOAL_HANDS_PER_SECOND
            for clock, key in (("wall", "process"), ("cpu", "process_cpu"))
        }
    result["plain_checker"] = {
        "source": "benchmarks/plain_checker.py",
        "process": figures(plain["process"], hands),
        "process_cpu": figures(plain["process_cpu"], hands),
        "start": figures(plain["start"], None),
    }
    for name in versions:
        ratios: dict[str, Any] = {}
        for clock, key in (("wall", "process"), ("cpu", "process_cpu")):
            ours, theirs = timings[name][key], plain[key]
            ratios[clock] = round(statistics.median(theirs) / statistics.median(ours), 2)
            ratios[f"{clock}_by_round"] = round(
                statistics.median(p / o for p, o in zip(theirs, ours, strict=True)), 2
            )
        ratios["goal_met"] = {
            clock: ratios[clock] >= GOAL_RATIO_VS_PLAIN for clock in ("wall", "cpu")
        }
        result[name]["vs_plain"] = ratios
    if "before" in result:
        result["speedup_process"] = round(
            result["before"]["process"]["median_s"] / result["after"]["process"]["median_s"], 2
        )
        result["speedup_in_process"] = round(
            result["before"]["in_process"]["median_s"]
            / result["after"]["in_process"]["median_s"], 2
        )
    if engine:
        result["engine_alone"] = figures([wall for wall, _ in engine], hands)
        result["engine_alone_cpu"] = figures([cpu for _, cpu in engine], hands)
    result["machine"] = machine()
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
