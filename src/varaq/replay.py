"""``varaq replay FILE|- [--json]``: check a game record and print its scores.

The record is replayed card by card through the engine (see :mod:`varaq.record`), so the
printed scores are the engine's, never the file's.  Whatever goes wrong — a broken rule, bad
JSON, a missing file, bytes that are not UTF-8 — the command prints one line on standard error
and exits with status 2: a person reading a score sheet should never meet a traceback.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from itertools import chain
from typing import Any

from .engine import Game
from .record import RecordError, load_record, parse_record
from .seats import SEAT_LETTERS, SIDE_NAMES

__all__ = ["add_arguments", "run", "summary", "summary_json", "score_table"]

#: Exit status for a record that cannot be read or breaks a rule.
BAD_RECORD = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a varaq-record/1 JSON file, or - for stdin")
    parser.add_argument(
        "--json", action="store_true", help="print the scores as JSON (see docs/record-format.md)"
    )


def run(args: argparse.Namespace) -> int:
    # Reading a long record makes hundreds of thousands of objects and no reference cycles;
    # the cycle collector would only walk them again and again (a tenth of the time of a
    # 10,000-hand record), so it rests while the record is read.
    collecting = gc.isenabled()
    gc.disable()
    try:
        text = _read_input(args.file)
        game = load_record(parse_record(text))
    except RecordError as e:
        return _refuse(str(e))
    except Exception as e:  # never a traceback: a bug still gets one honest line
        return _refuse(f"internal error while replaying: {type(e).__name__}: {e}")
    finally:
        if collecting:
            gc.enable()
    if args.json:
        print(summary_json(game))
    else:
        print(score_table(game))
    return 0


def _refuse(message: str) -> int:
    print(" ".join(message.split()), file=sys.stderr)
    return BAD_RECORD


def _read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordError(f"{path}: is a directory, not a record") from None
    except PermissionError:
        raise RecordError(f"{path}: permission denied") from None
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror or e}") from None


def _sides(pair: tuple[int, int] | list[int]) -> dict[str, int]:
    return {"NS": pair[0], "EW": pair[1]}


def _hand_figures(game: Game) -> list[tuple[int, ...]]:
    """Each finished hand's figures in the order the JSON gives them: tricks N E S W, then
    score, bags and running total, each NS EW."""
    rows: list[tuple[int, ...]] = []
    ns, ew = game.start_totals
    for log in game.log:
        r = log.result
        ns += r.score[0]
        ew += r.score[1]
        rows.append((*r.tricks, *r.score, *r.bags, ns, ew))
    return rows


def summary(game: Game) -> dict[str, Any]:
    """The scores of a replayed match, as ``varaq replay --json`` prints them."""
    hands = [
        {
            "tricks": {"N": row[0], "E": row[1], "S": row[2], "W": row[3]},
            "score": {"NS": row[4], "EW": row[5]},
            "bags": {"NS": row[6], "EW": row[7]},
            "total": {"NS": row[8], "EW": row[9]},
        }
        for row in _hand_figures(game)
    ]
    return {"hands": hands, **_match_state(game)}


def _match_state(game: Game) -> dict[str, Any]:
    """The summary's keys after ``hands``: where the match stands."""
    return {
        "total": _sides(game.totals),
        "bags": _sides(game.bags),
        "winner": None if game.winner is None else SIDE_NAMES[game.winner],
        "complete": game.is_over,
    }


#: One hand of the summary exactly as ``json.dumps(..., indent=2)`` lays it out in the list.
_HAND_JSON = """\
    {
      "tricks": {
        "N": %d,
        "E": %d,
        "S": %d,
        "W": %d
      },
      "score": {
        "NS": %d,
        "EW": %d
      },
      "bags": {
        "NS": %d,
        "EW": %d
      },
      "total": {
        "NS": %d,
        "EW": %d
      }
    }"""


def summary_json(game: Game) -> str:
    """``json.dumps(summary(game), indent=2)``, the same text, written faster.

    With ``indent`` the standard library encodes in Python, not C: 0.17 s for a 10,000-hand
    match, a tenth of the whole replay.  Every hand has the same shape, so each is one ``%``
    formatting of a fixed layout.
    """
    rows = _hand_figures(game)
    text = json.dumps({"hands": [], **_match_state(game)}, indent=2)
    if not rows:
        return text
    # One ``%`` for all the hands: a layout repeated once a hand, filled from one flat tuple.
    layout = ",\n".join([_HAND_JSON] * len(rows))
    hands = layout % tuple(chain.from_iterable(rows))
    return text.replace('"hands": []', f'"hands": [\n{hands}\n  ]', 1)


def _bid_word(bid: int, blind: bool) -> str:
    if blind:
        return "BN"
    return "nil" if bid == 0 else str(bid)


def score_table(game: Game) -> str:
    """A score sheet a person can read: one line per finished hand, then the outcome."""
    rules = game.rules
    others = [d for d in rules.differences() if not d.startswith("Target ")]
    lines = [f"Rules: {rules.label} ({rules.preset}), target {rules.target}; " + ", ".join(others)]
    lines[0] = lines[0].rstrip("; ")
    head = (
        f"{'hand':>4}  {'dealer':<6}  {'bids N E S W':<16}  {'tricks N E S W':<14}  "
        f"{'points NS/EW':>13}  {'bags NS/EW':>10}  {'total NS/EW':>12}"
    )
    lines += [head, "-" * len(head)]
    if any(game.start_totals) or any(game.start_bags):
        ns, ew = game.start_totals
        lines.append(
            f"{'start':>4}  {'':<6}  {'':<16}  {'':<14}  {'':>13}  "
            f"{f'{game.start_bags[0]}/{game.start_bags[1]}':>10}  {f'{ns}/{ew}':>12}"
        )
    totals = list(game.start_totals)
    for number, log in enumerate(game.log, 1):
        r = log.result
        totals = [totals[0] + r.score[0], totals[1] + r.score[1]]
        bids = " ".join(_bid_word(r.bids[s], r.blind[s]) for s in range(4))
        tricks = " ".join(str(t) for t in r.tricks)
        notes = []
        for side in (0, 1):
            if r.penalties[side]:
                notes.append(f"{SIDE_NAMES[side]} bag penalty x{r.penalties[side]}")
        line = (
            f"{number:>4}  {SEAT_LETTERS[log.dealer]:<6}  {bids:<16}  {tricks:<14}  "
            f"{f'{r.score[0]:+d}/{r.score[1]:+d}':>13}  {f'{r.bags[0]}/{r.bags[1]}':>10}  "
            f"{f'{totals[0]}/{totals[1]}':>12}"
        )
        lines.append(line + (f"  ({'; '.join(notes)})" if notes else ""))
    if not game.log:
        lines.append("(no finished hand)")
    ns, ew = game.totals
    if game.winner is not None:
        how = f", {SIDE_NAMES[game.conceded]} conceded" if game.conceded is not None else ""
        lines.append(f"Winner: {SIDE_NAMES[game.winner]} ({ns} to {ew}{how})")
    else:
        state = "in progress" if game.phase_name != "deal" else "not finished"
        lines.append(f"No winner yet: NS {ns}, EW {ew} (match {state})")
    return "\n".join(lines)
