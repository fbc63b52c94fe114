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
varaq.rules.RulesError: jokers and two_clubs_leads cannot be combined: ...
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Rules", "RulesError", "PRESETS", "RULE_HELP"]


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
    #: Free-text name kept for display only; not a rule.
    label: str = field(default="", compare=False)

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
            if key not in _FIELD_TYPES or key in ("preset", "label"):
                raise RulesError(f"unknown rule {key!r}")
            expected = _FIELD_TYPES[key]
            if expected is bool:
                ok = isinstance(value, bool)
            elif key == "mercy":
                ok = value is None or (isinstance(value, int) and not isinstance(value, bool))
            else:
                ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok:
                raise RulesError(f"rule {key!r} must be {_TYPE_WORDS[key]}, not {value!r}")
        return dataclasses.replace(self, **options)

    def to_spec(self) -> str | dict[str, Any]:
        """The shortest record form: the preset name, or the preset plus what differs."""
        base = PRESETS.get(self.preset, PRESETS["classic"])
        diff = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in ("preset", "label") and getattr(self, f.name) != getattr(base, f.name)
        }
        if not diff:
            return self.preset
        return {"preset": base.preset, **diff}

    # -- questions the engine and the table ask ---------------------------------------------

    @property
    def deck_size(self) -> int:
        return 52

    def badges(self) -> list[str]:
        """Short labels for the variations in force, shown on the table."""
        out = [f"{self.preset.capitalize()}", f"Target {self.target}"]
        if not self.nil:
            out.append("No nil")
        if self.blind_nil:
            out.append(f"Blind nil (trailing {self.blind_nil_trail})")
            if self.exchange:
                out.append(f"Exchange {self.exchange}")
        if self.two_clubs_leads:
            out.append("2♣ leads")
        if self.jokers:
            out.append("Big Joker Little Joker")
        if self.bag_penalty == 0:
            out.append("No bag penalty")
        elif (self.bag_limit, self.bag_penalty) != (10, 100):
            out.append(f"Bags {self.bag_limit}: −{self.bag_penalty}")
        if self.nil_bags_score:
            out.append("Nil tricks score")
        if self.mercy is not None:
            out.append(f"Mercy {self.mercy}")
        if self.min_team_bid:
            out.append(f"Board {self.min_team_bid}")
        if self.boston_bonus:
            out.append(f"Boston +{self.boston_bonus}")
        if self.nil and self.nil_value != 100:
            out.append(f"Nil ±{self.nil_value}")
        if self.blind_nil and self.blind_nil_value != 200:
            out.append(f"Blind nil ±{self.blind_nil_value}")
        return out


_FIELD_TYPES = {f.name: (bool if f.type in ("bool",) else int) for f in dataclasses.fields(Rules)}
_TYPE_WORDS = {
    name: ("true or false" if kind is bool else "a whole number")
    for name, kind in _FIELD_TYPES.items()
}
_TYPE_WORDS["mercy"] = "a whole number or null"


def _problem(r: Rules) -> str:
    """Why a combination of options cannot be played, or ``""``."""
    if r.target < 1:
        return "target must be at least 1"
    if r.jokers and r.two_clubs_leads:
        return "jokers and two_clubs_leads cannot be combined: the 2C is not in the joker deck"
    if r.blind_nil and not r.nil:
        return "blind nil needs nil: a table without nil has no blind nil"
    if r.bag_limit < 1:
        return "bag_limit must be at least 1"
    if r.bag_penalty < 0:
        return "bag_penalty must be 0 (off) or more"
    if r.mercy is not None and r.mercy >= r.target:
        return "mercy must be below the target"
    if not 0 <= r.min_team_bid <= 13:
        return "min_team_bid must be between 0 and 13"
    if not 0 <= r.exchange <= 4:
        return "exchange must be between 0 and 4 cards"
    if r.nil_value < 0 or r.blind_nil_value < 0 or r.boston_bonus < 0:
        return "nil_value, blind_nil_value and boston_bonus cannot be negative"
    if r.blind_nil_trail < 0:
        return "blind_nil_trail cannot be negative"
    return ""


PRESETS: dict[str, Rules] = {
    "classic": Rules(preset="classic", label="Classic"),
    "short": Rules(preset="short", target=300, label="Spades: Short"),
    "varaq": Rules(
        preset="varaq", blind_nil=False, exchange=0, nil_bags_score=True, label="Varaq"
    ),
    "daily": Rules(
        preset="daily", target=250, blind_nil=False, exchange=0, nil_bags_score=True,
        label="Daily deal",
    ),
}

#: One line per option, for ``--help`` texts and the custom-table form.
RULE_HELP: dict[str, str] = {
    "target": "points that end the match",
    "nil": "allow nil bids",
    "nil_value": "points won or lost on a nil",
    "blind_nil": "allow blind nil for a side trailing by blind_nil_trail",
    "blind_nil_value": "points won or lost on a blind nil",
    "blind_nil_trail": "how far a side must trail to bid blind nil",
    "exchange": "cards passed each way after a blind nil",
    "nil_bags_score": "a nil bidder's tricks score a point each",
    "two_clubs_leads": "the holder of the 2C leads it to the first trick",
    "jokers": "Big Joker Little Joker deck",
    "bag_limit": "bags that trigger the penalty",
    "bag_penalty": "points lost at the bag limit (0 = off)",
    "mercy": "a side below this total loses",
    "min_team_bid": "a side's combined bid must reach this (board)",
    "boston_bonus": "bonus for taking all 13 tricks",
}
