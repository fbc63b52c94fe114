"""``varaq solve FILE|-``: perfect play of card-play positions, one per line.

Each line is a position (see :mod:`varaq.position`); each answer is one JSON line::

    {"line": 1, "leader": "W", "turn": "W", "tricks": 8, "cards": {"KH": 8, "2C": 7}}

``tricks`` is what the side of the player to act takes from here with perfect play by both sides
(the trick in progress included) and ``cards`` the same count after each of its legal cards.
Blank lines and lines starting with ``#`` are skipped.  A bad line gets one line on standard
error (``line 3: ...``) and no answer, the other lines are still solved, and the exit status
is 2 if any line was bad.

``--version`` says which search is used: the compiled core, or the pure Python one (and why).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from . import __version__
from .cards import card_text, sort_key
from .position import Position, PositionError, seat_letter
from .solver import BACKENDS, backend_status, tell_fallback

__all__ = ["add_arguments", "run", "answer", "solve_lines"]

BAD_LINE = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", nargs="?", help="positions, one per line, or - for standard input"
    )
    parser.add_argument(
        "--backend", choices=BACKENDS, default=None,
        help="force the compiled core (c) or the pure Python search (default: the core if built)",
    )
    parser.add_argument(
        "--version", action="store_true", help="print the version and which search is used"
    )


def answer(position: Position, backend: str | None = None) -> dict[str, Any]:
    """The JSON answer for one position (without its line number)."""
    values = position.values(backend)
    cards = {card_text(c): values[c] for c in sorted(values, key=sort_key)}
    return {
        "leader": seat_letter(position.leader),
        "turn": seat_letter(position.turn),
        "tricks": max(values.values()),
        "cards": cards,
    }


def solve_lines(
    lines: Iterable[str], backend: str | None = None,
) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, answer or the reason the line is bad) for each position line."""
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            position = Position.parse(line)
        except PositionError as e:
            yield number, str(e)
            continue
        yield number, answer(position, backend)


def run(args: argparse.Namespace) -> int:
    _, why = backend_status()
    if args.version:
        print(f"varaq {__version__}; solver: {why}")
        return 0
    if args.file is None:
        return _refuse("varaq solve: give a file of positions, or - for standard input")
    if args.backend != "python":
        tell_fallback()
    try:
        stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    except OSError as e:
        return _refuse(f"{args.file}: cannot read: {e.strerror or e}")
    try:
        return _answer_all(stream, args.backend)
    except UnicodeDecodeError:
        return _refuse(f"{args.file}: not UTF-8 text")
    finally:
        if stream is not sys.stdin:
            stream.close()


def _answer_all(stream: TextIO, backend: str | None) -> int:
    bad = False
    for number, result in solve_lines(stream, backend):
        if isinstance(result, str):
            bad = True
            print(f"line {number}: {' '.join(result.split())}", file=sys.stderr)
        else:
            print(json.dumps({"line": number, **result}), flush=True)
    return BAD_LINE if bad else 0


def _refuse(message: str) -> int:
    print(" ".join(message.split()), file=sys.stderr)
    return BAD_LINE
