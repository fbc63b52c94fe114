"""The ``varaq`` command.

Each subcommand lives in the module that owns its work and exposes two functions,
``add_arguments(parser)`` and ``run(args) -> int``; this file only dispatches, importing only
the module of the subcommand asked for, so that ``varaq replay`` never pays for the web stack,
the arena's process pool or the solver (``python -X importtime`` shows what a start costs).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import __version__

#: name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("varaq.web.serve", "start the web table (http://127.0.0.1:8000)"),
    "play": ("varaq.play", "play a match in the terminal, you at South (--daily: a daily)"),
    "db": ("varaq.service.dbcli", "upgrade, prune, check, back up or restore the server's "
           "database"),
    "admin": ("varaq.service.admin", "accounts, bans, password resets, live tables and the "
              "audit log, in the server's database"),
    "ratings": ("varaq.service.ratings", "rebuild the players' ratings and match history "
                "from the stored matches"),
    "replay": ("varaq.replay", "check a game record and print its scores"),
    "arena": ("varaq.arena", "play computer players against each other in duplicate"),
    "analyse": ("varaq.analysis", "solve a record's hands double dummy and show each card's cost"),
    "solve": ("varaq.solve_cli", "perfect play of positions given one per line (JSON answers)"),
}


def version_text() -> str:
    """``varaq --version``: the version, the solver core in use, and the git revision when
    this is a checkout (``varaq 0.2.0 (solver: compiled core; git 1a2b3c4)``)."""
    from .solver import backend_status

    chosen, why = backend_status()
    core = "compiled core" if chosen == "c" else why
    parts = [f"solver: {core}"]
    revision = git_revision()
    if revision:
        parts.append(f"git {revision}")
    return f"varaq {__version__} ({'; '.join(parts)})"


def git_revision() -> str | None:
    """The short revision of the checkout this package runs from (``src/varaq`` in a work tree
    holding Varaq's ``pyproject.toml``); ``None`` for an installed package, or without git."""
    # Imported here, not at the top: every ``varaq`` command would pay for them at start
    # (``varaq replay`` of a long record counts its start), and only ``--version`` needs them.
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent.parent
    if not (root / "pyproject.toml").is_file() or not (root / "src" / "varaq").is_dir():
        return None
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    revision = done.stdout.strip()
    return revision if done.returncode == 0 and revision.isalnum() else None


class _Version(argparse.Action):
    """Prints :func:`version_text`, worked out only when asked for (it imports the solver)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version, the solver "
                         "core in use and the git revision, and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(version_text())
        parser.exit()


class _OneLineParser(argparse.ArgumentParser):
    """Bad options are reported in one line (and ``--help`` says the rest), like every other
    refusal in Varaq, instead of argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``varaq`` parser; with ``command``, only that subcommand's module is imported (and
    the others show their one-line help but take no options)."""
    parser = _OneLineParser(
        prog="varaq",
        description="Varaq: Partnership Spades — play, replay, and pit computer players.",
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineParser)
    for name, (module, text) in COMMANDS.items():
        p = sub.add_parser(name, help=text, description=text)
        if command is not None and name != command:
            continue
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def replay_words(words: Sequence[str]) -> argparse.Namespace | None:
    """``varaq replay FILE [--json]`` in its plain form, read without building the parser.

    Building it costs more than a short record takes to check: argparse's help formatter
    imports ``shutil`` (and with it ``bz2`` and ``lzma``) and ``locale``, and each subcommand
    gets a parser of its own.  Only these exact words take this way (``FILE`` a path or ``-``,
    ``--json`` before or after it, once); anything else, ``--help`` or a misspelt option
    included, goes through the parser, which explains it.
    """
    if len(words) < 2 or words[0] != "replay" or len(words) > 3:
        return None
    rest = list(words[1:])
    as_json = "--json" in rest
    if as_json:
        rest.remove("--json")
    if len(rest) != 1 or (rest[0].startswith("-") and rest[0] != "-"):
        return None
    from .replay import run

    return argparse.Namespace(version=None, command="replay", file=rest[0], json=as_json, _run=run)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = replay_words(words)
    if args is None:
        # The subcommand is the first word that is not an option (``varaq`` takes none with
        # a value), so its module is the only one imported.
        command = next((w for w in words if not w.startswith("-")), "")
        parser = build_parser(command)
        args = parser.parse_args(words)
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
