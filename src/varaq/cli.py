"""The ``varaq`` command.

Each subcommand lives in the module that owns its work and exposes two functions,
``add_arguments(parser)`` and ``run(args) -> int``; this file only dispatches, importing a
subcommand's module when it is used so that ``varaq replay`` never pays for the web stack.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__

#: name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("varaq.web.serve", "start the web table (http://127.0.0.1:8000)"),
    "replay": ("varaq.replay", "check a game record and print its scores"),
    "arena": ("varaq.arena", "play computer players against each other in duplicate"),
    "analyse": ("varaq.analysis", "solve a record's hands double dummy and show each card's cost"),
    "solve": ("varaq.solve_cli", "perfect play of positions given one per line (JSON answers)"),
}


class _OneLineParser(argparse.ArgumentParser):
    """Bad options are reported in one line (and ``--help`` says the rest), like every other
    refusal in Varaq, instead of argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="varaq",
        description="Varaq: Partnership Spades — play, replay, and pit computer players.",
    )
    parser.add_argument("--version", action="version", version=f"varaq {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineParser)
    for name, (module, text) in COMMANDS.items():
        p = sub.add_parser(name, help=text, description=text)
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "_run", None)
    if run is None:
        if args.command:
            print(f"varaq: the {args.command} command is not available", file=sys.stderr)
            return 2
        parser.print_help()
        return 0
    try:
        return int(run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
