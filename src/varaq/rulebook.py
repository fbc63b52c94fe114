"""The rules in words: one table's rules as short sections, and the option tables of the docs.

The table's "Rules" dialog, the ``/rules`` page and ``docs/rules.md`` all describe rules that
are data (:class:`~varaq.rules.Rules`).  The words are written here once, from the values of the
table in front of the reader, so a table to 300 with a board of 4 is described as exactly that.

>>> doc = describe(Rules.named("varaq"))
>>> doc["label"], [s["heading"] for s in doc["sections"]][:3]
('Varaq', ['Winning', 'Cards', 'Bidding'])
"""

from __future__ import annotations

import json
from typing import Any

from .rules import OPTIONS, PRESET_LABELS, PRESETS, Rules, RulesError, signed

__all__ = ["describe", "rules_from_text", "options_markdown", "presets_markdown"]


def rules_from_text(text: str) -> Rules:
    """Rules from a preset name or a JSON spec (``{"preset": "varaq", "target": 300}``), as a
    URL's ``?spec=`` carries them; anything else is a one-line :class:`RulesError`."""
    text = text.strip()
    if not text:
        raise RulesError("spec is empty: give a preset name or a JSON object")
    if text[0] in "{[\"":
        try:
            spec = json.loads(text)
        except ValueError:
            raise RulesError("spec is not valid JSON") from None
        if isinstance(spec, dict) and not isinstance(spec.get("preset", ""), str):
            raise RulesError("spec: preset must be a name")
        return Rules.from_spec(spec)
    return Rules.named(text)


def describe(rules: Rules) -> dict[str, Any]:
    """One table's rules in words: ``{"label", "badges", "sections": [{heading, text}]}``."""
    return {
        "label": rules.label,
        "badges": rules.badges(),
        "spec": rules.to_spec(),
        "sections": [
            {"heading": heading, "text": text}
            for heading, text in (
                ("Winning", _winning(rules)),
                ("Cards", _cards(rules)),
                ("Bidding", _bidding(rules)),
                ("Nil", _nil(rules)),
                ("Blind nil", _blind_nil(rules)),
                ("Play", _play(rules)),
                ("Scoring", _scoring(rules)),
                ("Bags", _bags(rules)),
            )
        ],
    }


def _winning(r: Rules) -> str:
    text = (f"The first side to reach {r.target} points wins. If both sides reach it in the "
            "same hand, the higher total wins; if the totals are equal, another hand is played.")
    if r.mercy is not None:
        text += f" A side whose total falls below {signed(r.mercy)} loses at once (mercy)."
    return text


def _cards(r: Rules) -> str:
    if r.jokers:
        return ("Big Joker Little Joker: the 2♣ and 2♥ leave the deck and two jokers join "
                "it, still 52 cards, 13 each. The jokers are spades and the highest trumps: "
                "Big Joker, then Little Joker, then 2♠, then A♠, K♠ and down to 3♠.")
    return ("A standard 52-card deck, 13 cards each, aces high. Spades are always trumps: "
            "any spade beats any card of another suit.")


def _bidding(r: Rules) -> str:
    low = "nil (0)" if r.nil else "1"
    text = (f"Starting at the dealer's left, each player bids once how many tricks they will "
            f"take, from {low} to 13. Partners add their bids into one contract.")
    if r.min_team_bid:
        text += (f" Board: partners must bid at least {r.min_team_bid} together, unless one of "
                 "them bids nil or blind nil.")
    return text


def _nil(r: Rules) -> str:
    if not r.nil:
        return "Nil is not played at this table: every bid is at least 1."
    extra = ("also score a point each" if r.nil_bags_score else "score nothing")
    return (f"A nil bid promises to take no trick: it wins {r.nil_value} points if kept and "
            f"loses {r.nil_value} if broken. The nil bidder's tricks never count toward the "
            f"partner's contract; they are bags for the side and {extra}.")


def _blind_nil(r: Rules) -> str:
    if not r.blind_nil:
        return "Blind nil is not played at this table."
    text = (f"A side that is at least {r.blind_nil_trail} points behind when the cards are "
            f"dealt may bid blind nil: nil before looking at the cards, worth "
            f"{r.blind_nil_value} either way. One blind nil per side per hand; a player who "
            "looks at the cards may still bid an ordinary nil.")
    if r.exchange:
        n = f"{r.exchange} card{'s' * (r.exchange != 1)}"
        text += (f" After the bidding the blind nil bidder's partner passes {n} across, then "
                 f"the bidder passes {n} back.")
    else:
        text += " No cards are exchanged."
    return text


def _play(r: Rules) -> str:
    first = ("The holder of the 2♣ leads it to the first trick."
             if r.two_clubs_leads else "The player at the dealer's left leads the first trick.")
    return (f"{first} Everyone must follow the suit led if they can; a player who cannot may "
            "play any card, a spade included (a cut). Spades may not be led until a spade has "
            "been played to an earlier trick (spades are broken), unless the leader holds "
            "nothing but spades. The highest spade wins the trick, or without a spade the "
            "highest card of the suit led; the winner leads next.")


def _scoring(r: Rules) -> str:
    text = ("A side that takes at least its contract scores 10 points a trick bid and 1 point "
            "for each trick over it. A side that falls short is set: it loses 10 points a "
            "trick bid, and its tricks score nothing.")
    if r.boston_bonus:
        text += f" Taking all 13 tricks (a Boston) earns {r.boston_bonus} points more."
    else:
        text += " Taking all 13 tricks (a Boston) scores like any other hand."
    return text


def _bags(r: Rules) -> str:
    text = ("Every trick over the contract, and every trick a nil bidder takes, is a bag. "
            "Bags carry from hand to hand.")
    if r.bag_penalty:
        text += (f" Each time a side's bags reach {r.bag_limit} it loses {r.bag_penalty} "
                 f"points and {r.bag_limit} bags are taken off the count; one hand can cost "
                 "the penalty twice.")
    else:
        text += " There is no bag penalty at this table."
    return text


# -- the tables of docs/rules.md -------------------------------------------------------------


def _range_words(name: str) -> str:
    option = OPTIONS[name]
    if option.low is None or option.high is None:
        return "on or off"
    if name == "mercy":
        return f"{signed(option.low)} to one below the target, or none"
    return f"{signed(option.low)} to {signed(option.high)}"


def options_markdown() -> str:
    """Every option: its key in a spec, its name in the form, its range and what it does."""
    rows = ["| option | in the form | allowed | what it changes |", "|---|---|---|---|"]
    for name, option in OPTIONS.items():
        rows.append(f"| `{name}` | {option.words} | {_range_words(name)} | {option.help} |")
    return "\n".join(rows) + "\n"


def _value_words(name: str, value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return signed(value)


def presets_markdown() -> str:
    """Each preset's value of every option, side by side."""
    names = list(PRESETS)
    head = "| option | " + " | ".join(f"{PRESET_LABELS[n]} (`{n}`)" for n in names) + " |"
    rows = [head, "|---|" + "---|" * len(names)]
    for option in OPTIONS:
        values = " | ".join(_value_words(option, getattr(PRESETS[n], option)) for n in names)
        rows.append(f"| {OPTIONS[option].words} | {values} |")
    return "\n".join(rows) + "\n"
