"""House rules as data.

Every table plays one engine; what differs between tables is a :class:`Rules` value.  Presets
are named ``Rules`` values, and a table's own rules are a preset plus overrides — exactly the
shape of a record's ``rules`` field — so the same spec text configures the engine, the server
and the record format.

>>> Rules.named("varaq").target
500
>>> Rules.from_spec({"preset": "classic", "target": 300}).target
300
>>> Rules.from_spec({"preset": "classic", "jokers": True, "two_clubs_leads": True})
Traceback (most recent call last):
...
varaq.rules.RulesError: Big Joker Little Joker and 2♣ leads cannot be combined: ...
>>> Rules.from_spec({"preset": "classic", "target": 300}).label
'Custom'

Every whole-number option has a range (:data:`OPTIONS`), so a table can neither overflow a
browser's numbers nor be unplayable; refusals name the option in the words of the New game form.
The rules in words, the option table and the worked examples are in ``docs/rules.md``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Rules", "RulesError", "PRESETS", "PRESET_LABELS", "DEFAULT_PRESET", "RULE_HELP", "OPTIONS",
    "Option", "options_json", "signed",
]


class RulesError(ValueError):
    """Unknown option, bad value or incompatible combination; the message says which."""


@dataclass(frozen=True, slots=True)
class Rules:
    """One table's rules.  Field names are the record's override keys."""

    preset: str = "classic"
    #: The match ends after a hand in which a side reaches this total.
    target: int = 500
    #: Whether a bid of 0 (nil) is allowed at all.  Without nil the lowest bid is 1.
    nil: bool = True
    nil_value: int = 100
    blind_nil: bool = True
    blind_nil_value: int = 200
    #: A side must trail by at least this many points at the deal to bid blind nil.
    blind_nil_trail: int = 100
    #: Cards passed each way after a blind nil (0 = no exchange).
    exchange: int = 2
    #: Whether a nil bidder's tricks also score a point each (they are always bags).
    nil_bags_score: bool = False
    two_clubs_leads: bool = False
    jokers: bool = False
    bag_limit: int = 10
    #: Points lost each time the bag count reaches ``bag_limit``; 0 turns the penalty off.
    bag_penalty: int = 100
    #: A side whose total falls below this after a hand loses (``None`` = no mercy rule).
    mercy: int | None = None
    #: "Board": a side's combined bid must reach this unless a partner bid nil (0 = none).
    min_team_bid: int = 0
    #: Extra points for a side taking all 13 tricks (0 = none).
    boston_bonus: int = 0

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem:
            raise RulesError(problem)

    # -- construction -----------------------------------------------------------------------

    @staticmethod
    def named(name: str) -> Rules:
        """The named preset: ``classic``, ``short``, ``varaq`` or ``daily``."""
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesError(
                f"unknown preset {name!r} (choose from {', '.join(PRESETS)})"
            ) from None

    @staticmethod
    def from_spec(spec: str | dict[str, Any] | Rules) -> Rules:
        """Rules from a record's ``rules`` field: a preset name or ``{"preset": …, overrides}``."""
        if isinstance(spec, Rules):
            return spec
        if isinstance(spec, str):
            return Rules.named(spec)
        if not isinstance(spec, dict):
            raise RulesError("rules must be a preset name or an object")
        base = Rules.named(spec.get("preset", "classic"))
        overrides = {k: v for k, v in spec.items() if k != "preset"}
        return base.with_options(**overrides)

    def with_options(self, **options: Any) -> Rules:
        """A copy with some options changed; unknown names and wrong types are refused."""
        for key, value in options.items():
            if key not in OPTIONS:
                raise RulesError(f"unknown rule {key!r}")
            expected = _FIELD_TYPES[key]
            if expected is bool:
                ok = isinstance(value, bool)
            elif key == "mercy":
                ok = value is None or (isinstance(value, int) and not isinstance(value, bool))
            else:
                ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok:
                raise RulesError(f"{OPTIONS[key].words} must be {_TYPE_WORDS[key]}, not {value!r}")
        return dataclasses.replace(self, **options)

    def to_spec(self) -> str | dict[str, Any]:
        """The shortest record form: the preset name, or the preset plus what differs."""
        base = PRESETS.get(self.preset, PRESETS["classic"])
        diff = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name != "preset" and getattr(self, f.name) != getattr(base, f.name)
        }
        if not diff:
            return self.preset
        return {"preset": base.preset, **diff}

    # -- questions the engine and the table ask ---------------------------------------------

    @property
    def deck_size(self) -> int:
        return 52

    @property
    def label(self) -> str:
        """The table's name: its preset's ("Classic", "Short, to 300"…), or "Custom" once any
        option differs from the preset, so a changed table never passes for the plain one."""
        base = PRESETS.get(self.preset)
        return PRESET_LABELS[self.preset] if base is not None and base == self else "Custom"

    def differences(self) -> list[str]:
        """One short phrase per option that differs from the preset, in the table's order."""
        base = PRESETS.get(self.preset, PRESETS["classic"])
        return [
            _badge(name, getattr(self, name))
            for name in OPTIONS
            if getattr(self, name) != getattr(base, name)
        ]

    def badges(self) -> list[str]:
        """What the table shows about its rules: the label first, then every rule that differs
        from the default table (the ``varaq`` preset), in the table's words — so a Classic table
        reads ``["Classic", "Blind nil", "Exchange 2", "Nil tricks do not score"]`` and only the
        default table is its name alone.  A value whose rule is off at this table (blind nil's
        worth without blind nil) is no badge: it changes nothing."""
        default = PRESETS[DEFAULT_PRESET]
        return [self.label, *(
            _badge(name, getattr(self, name))
            for name in OPTIONS
            if getattr(self, name) != getattr(default, name)
            and all(getattr(self, switch) for switch in _NEEDS.get(name, ()))
        )]


def signed(number: int) -> str:
    """A number as printed for people: a true minus sign (−200), so it reads as one word."""
    return f"−{-number}" if number < 0 else str(number)


def _badge(name: str, value: Any) -> str:
    """The phrase for one option's value, as a badge on the table."""
    if name == "target":
        return f"Target {value}"
    if name in ("nil_value", "blind_nil_value"):
        return f"{OPTIONS[name].words.removesuffix(' value')} ±{value}"
    if name == "blind_nil_trail":
        return f"Blind nil when {value} behind"
    if name == "exchange":
        return f"Exchange {value}" if value else "No exchange"
    if name == "bag_limit":
        return f"Bag limit {value}"
    if name == "bag_penalty":
        return f"Bag penalty −{value}" if value else "No bag penalty"
    if name == "mercy":
        return "No mercy rule" if value is None else f"Mercy {signed(value)}"
    if name == "min_team_bid":
        return f"Board {value}" if value else "No board"
    if name == "boston_bonus":
        return f"Boston +{value}" if value else "No Boston bonus"
    # The on/off options: their words when on.
    return OPTIONS[name].words if value else _OFF_WORDS[name]


#: The switches an option means something only under (nil's worth needs nil, the exchange
#: needs blind nil, which needs nil).
_NEEDS: dict[str, tuple[str, ...]] = {
    "nil_value": ("nil",),
    "nil_bags_score": ("nil",),
    "blind_nil": ("nil",),
    "blind_nil_value": ("nil", "blind_nil"),
    "blind_nil_trail": ("nil", "blind_nil"),
    "exchange": ("nil", "blind_nil"),
}

_OFF_WORDS = {
    "nil": "No nil",
    "blind_nil": "No blind nil",
    "nil_bags_score": "Nil tricks do not score",
    "two_clubs_leads": "No 2♣ lead",
    "jokers": "No jokers",
}


@dataclass(frozen=True, slots=True)
class Option:
    """One option of the table: its name in the New game form's words, a line of help, and
    for a whole number the range it may take (both ends allowed)."""

    words: str
    help: str
    low: int | None = None
    high: int | None = None


#: Largest target a table may play to: a few thousand points is already a very long match, and
#: a bound keeps every total well inside the numbers a browser counts exactly.
MAX_TARGET = 5000

#: Every option, in the order the form, the badges and ``docs/rules.md`` list them.
OPTIONS: dict[str, Option] = {
    "target": Option("Target", "the total that ends the match", 50, MAX_TARGET),
    "nil": Option("Nil", "players may bid nil (zero tricks)"),
    "nil_value": Option("Nil value", "points won for a nil made, lost for a nil broken", 0, 1000),
    "blind_nil": Option("Blind nil", "a side far enough behind may bid nil before looking"),
    "blind_nil_value": Option(
        "Blind nil value", "points won or lost on a blind nil", 0, 1000),
    "blind_nil_trail": Option(
        "Blind nil threshold", "how many points behind a side must be to bid blind nil",
        0, 1000),
    "exchange": Option("Exchange", "cards the partners swap after a blind nil", 0, 4),
    "nil_bags_score": Option("Nil tricks score", "a nil bidder's tricks also score a point each"),
    "two_clubs_leads": Option("2♣ leads", "whoever holds the 2♣ leads it to the first trick"),
    "jokers": Option(
        "Big Joker Little Joker", "two jokers replace the 2♣ and 2♥ as the highest spades"),
    "bag_limit": Option("Bag limit", "how many bags bring the penalty", 1, 50),
    "bag_penalty": Option("Bag penalty", "points lost at the bag limit (0 = none)", 0, 1000),
    "mercy": Option(
        "Mercy", "a side that falls below this total loses (blank = none)",
        -MAX_TARGET, MAX_TARGET - 1),
    "min_team_bid": Option(
        "Minimum team bid", "the least two partners may bid together (board)", 0, 13),
    "boston_bonus": Option("Boston bonus", "extra points for taking all 13 tricks", 0, 1000),
}

#: One line per option, for ``--help`` texts and the custom-table form.
RULE_HELP: dict[str, str] = {name: option.help for name, option in OPTIONS.items()}


def options_json() -> dict[str, dict[str, Any]]:
    """Every option's words, help and range as JSON: the New game form sets its fields' labels
    and limits from this, so the browser and the server never disagree about a range."""
    return {
        name: {"words": o.words, "help": o.help, "low": o.low, "high": o.high}
        for name, o in OPTIONS.items()
    }

_FIELD_TYPES = {f.name: (bool if f.type in ("bool",) else int) for f in dataclasses.fields(Rules)}
_TYPE_WORDS = {
    name: ("true or false" if kind is bool else "a whole number")
    for name, kind in _FIELD_TYPES.items()
}
_TYPE_WORDS["mercy"] = "a whole number or null (no mercy rule)"


def _problem(r: Rules) -> str:
    """Why a table cannot be played, or ``""``: a value out of its range or a combination."""
    for name, option in OPTIONS.items():
        value = getattr(r, name)
        if option.low is None or option.high is None or value is None:
            continue
        if name == "mercy" and value >= option.low:
            continue  # its upper end is the target, checked below
        if not option.low <= value <= option.high:
            return (f"{option.words} must be between {signed(option.low)} "
                    f"and {signed(option.high)}")
    if r.mercy is not None and r.mercy >= r.target:
        return "Mercy must be below the target"
    if r.jokers and r.two_clubs_leads:
        return ("Big Joker Little Joker and 2♣ leads cannot be combined: "
                "the 2♣ is not in the joker deck")
    if r.blind_nil and not r.nil:
        return "Blind nil needs nil: a table without nil has no blind nil"
    return ""


PRESETS: dict[str, Rules] = {
    "classic": Rules(preset="classic"),
    "short": Rules(preset="short", target=300),
    "varaq": Rules(preset="varaq", blind_nil=False, exchange=0, nil_bags_score=True),
    "daily": Rules(preset="daily", target=250, blind_nil=False, exchange=0, nil_bags_score=True),
}

#: The presets by name, as the table and the form show them.  The ``daily`` preset is the daily
#: deal's table (Varaq's rules to 250); anyone may also choose it for a game of their own.
PRESET_LABELS: dict[str, str] = {
    "classic": "Classic",
    "short": "Short, to 300",
    "varaq": "Varaq",
    "daily": "Daily, to 250",
}

#: The default table: what a new game, an online table and quick match start from when nothing
#: else is chosen, and what the badges are measured against.
DEFAULT_PRESET = "varaq"
