"""What a new table is made of, and the checks on a request for one.

A :class:`TableInfo` is a table's fixed facts (its row in the store, without the entries).  The
parsers here turn a request's JSON into one, every problem a one-line
:class:`~.errors.Refusal`: a single-player game (:func:`parse_new_game`), a private table
(:func:`parse_private_table`), and the table codes people type to join.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..bots import LEVELS
from ..engine import Game
from ..rules import Rules, RulesError
from ..seats import SEAT_LETTERS
from .commands import read_listing
from .errors import Refusal
from .online import TURN_TIMERS
from .store import StoredTable

__all__ = [
    "TableInfo", "new_table_id", "parse_new_game", "parse_private_table", "read_rules",
    "new_code", "plausible_id", "CODE_ALPHABET", "CODE_LENGTH",
]


def new_table_id() -> str:
    """An unguessable id: at a single-player table, knowing it is what lets a browser play."""
    return secrets.token_urlsafe(16)


@dataclass(slots=True)
class TableInfo:
    """A table's fixed facts (its row in the store, without the entries)."""

    id: str
    kind: str
    level: str
    rules: Rules
    seed: str
    totals: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    dealer: int | None = None
    code: str | None = None
    host: int | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def new_game(self) -> Game:
        return Game(self.rules, seed=self.seed, totals=self.totals, bags=self.bags,
                    dealer=self.dealer)

    def start_json(self) -> dict[str, Any]:
        return {"total": list(self.totals), "bags": list(self.bags), "dealer": self.dealer}

    @classmethod
    def from_stored(cls, row: StoredTable) -> TableInfo:
        start = row.start
        total = start.get("total") or [0, 0]
        bags = start.get("bags") or [0, 0]
        return cls(
            row.id, row.kind, row.level, Rules.from_spec(row.rules), row.seed,
            (int(total[0]), int(total[1])), (int(bags[0]), int(bags[1])), start.get("dealer"),
            row.code, row.host, dict(row.options),
        )


def plausible_id(table_id: str) -> bool:
    return 8 <= len(table_id) <= 64 and all(c.isalnum() or c in "-_" for c in table_id)


_TEST_ONLY = ("seed", "start", "dealer")


def parse_new_game(body: Mapping[str, Any], *, test_mode: bool = False) -> TableInfo:
    """Check a new-game body; every problem is a :class:`Refusal` with one line.

    ``seed``, ``start`` and ``dealer`` let a test set up an exact position; a real server
    refuses them, since a client that knows the seed can work out every card of every hand.
    """
    known = {"level", "rules", *_TEST_ONLY}
    unknown = sorted(set(body) - known)
    if unknown:
        raise Refusal(400, f"unknown field {unknown[0]!r} (known: level, rules)")
    if not test_mode:
        for key in _TEST_ONLY:
            if key in body:
                raise Refusal(
                    400, f"{key} may only be chosen on a server started in test mode"
                )
    level = body.get("level", "normal")
    if level not in LEVELS:
        raise Refusal(400, f"unknown level {level!r} (choose from {', '.join(LEVELS)})")
    rules = read_rules(body.get("rules", "varaq"))
    seed = body.get("seed")
    if seed is None:
        seed = secrets.randbits(48)
    elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise Refusal(400, "seed must be a whole number from 0 to 2**63-1")
    totals, bags = _parse_start(body.get("start"))
    dealer = body.get("dealer")
    if dealer is not None:
        if not isinstance(dealer, str) or dealer.upper() not in ("N", "E", "S", "W"):
            raise Refusal(400, "dealer must be one of N, E, S, W")
        dealer = SEAT_LETTERS.index(dealer.upper())
    return TableInfo(new_table_id(), "solo", level, rules, str(seed), totals, bags, dealer)


#: Table codes: short enough to read out, from letters and digits that cannot be confused
#: (no 0/O, 1/I), and random: 30**6 is about 729 million, and join attempts are rate-limited.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def parse_private_table(body: Mapping[str, Any]) -> TableInfo:
    """Check a new private table's body: level, rules, bots in empty seats, turn timer, and
    whether it is listed under Live tables (``listing``; only a body that names it sets it, so
    a host who changes the variations keeps the listing they chose)."""
    known = {"level", "rules", "fill_bots", "turn_timer", "listing"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise Refusal(400, f"unknown field {unknown[0]!r} (known: {', '.join(sorted(known))})")
    level = body.get("level", "normal")
    if level not in LEVELS:
        raise Refusal(400, f"unknown level {level!r} (choose from {', '.join(LEVELS)})")
    rules = read_rules(body.get("rules", "varaq"))
    fill = body.get("fill_bots", True)
    if not isinstance(fill, bool):
        raise Refusal(400, "fill_bots must be true or false")
    timer = body.get("turn_timer", 0)
    if timer not in TURN_TIMERS or isinstance(timer, bool):
        raise Refusal(400, f"turn_timer must be one of {', '.join(map(str, TURN_TIMERS))}")
    options: dict[str, Any] = {"fill_bots": fill, "turn_timer": timer}
    if "listing" in body:
        options["public"] = read_listing(body["listing"])
    return TableInfo(new_table_id(), "private", level, rules, str(secrets.randbits(48)),
                     options=options)


def read_rules(spec: Any) -> Rules:
    """A table's rules from a request; a bad spec is a 422 saying why."""
    try:
        return Rules.from_spec(spec)
    except RulesError as e:
        raise Refusal(422, str(e)) from None
    except (TypeError, ValueError, AttributeError) as e:
        raise Refusal(422, f"bad rules: {e}") from None


def _parse_start(start: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    if start is None:
        return (0, 0), (0, 0)
    if not isinstance(start, dict) or set(start) - {"total", "bags"}:
        raise Refusal(400, 'start must be {"total": {"NS": n, "EW": n}, "bags": {...}}')
    out = []
    for key in ("total", "bags"):
        part = start.get(key) or {}
        if not isinstance(part, dict) or set(part) - {"NS", "EW"}:
            raise Refusal(400, f'start.{key} must be {{"NS": n, "EW": n}}')
        pair = []
        for side in ("NS", "EW"):
            value = part.get(side, 0)
            if not isinstance(value, int) or isinstance(value, bool) or abs(value) > 100000:
                raise Refusal(400, f"start.{key}.{side} must be a whole number")
            if key == "bags" and value < 0:
                raise Refusal(400, f"start.bags.{side} cannot be negative")
            pair.append(value)
        out.append((pair[0], pair[1]))
    return out[0], out[1]

