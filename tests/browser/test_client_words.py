"""The client's words agree with the engine's: card names, and the sentences it announces.

A card button's accessible name ("Queen of hearts") is built in ``static/cards.js``; the
engine names cards in ``varaq.cards.card_name``.  Both must say the same thing, or a screen
reader and a hint would disagree.  These run the real modules under Node (no browser needed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from varaq.cards import card_name, card_text
from varaq.web.app import STATIC_DIR

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None and not os.environ.get("CI"), reason="node is not installed"
)
NAMES = {"N": "Partner", "E": "East", "S": "You", "W": "West"}


def run_module(tmp_path: Path, script: str) -> Any:
    """Run ``script`` (an ES module that prints JSON) beside a copy of the client's modules."""
    for source in STATIC_DIR.glob("*.js"):
        shutil.copy(source, tmp_path / source.name)
    (tmp_path / "package.json").write_text('{"type": "module"}')
    (tmp_path / "check.js").write_text(script)
    assert NODE
    out = subprocess.run(
        [NODE, str(tmp_path / "check.js")],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout
    return json.loads(out)


def test_client_card_names_match_the_engine(tmp_path: Path) -> None:
    codes = [card_text(c) for c in range(54)]
    names = run_module(tmp_path, (
        'import { cardName, cardPhrase } from "./cards.js";'
        f"const codes = {json.dumps(codes)};"
        "console.log(JSON.stringify(codes.map((c) => [cardName(c), cardPhrase(c)])));"
    ))
    for card, (name, phrase) in zip(range(54), names, strict=True):
        assert name == card_name(card)
        assert phrase == f"the {card_name(card).lower()}"


def test_announcements_name_the_player_the_card_and_the_winner(tmp_path: Path) -> None:
    events = [
        {"kind": "play", "seat": "W", "action": "9S", "trick": None},
        {"kind": "play", "seat": "S", "action": "QH",
         "trick": {"leader": "E", "cards": ["2H", "5H", "QH", "9S"], "winner": "W"}},
        {"kind": "bid", "seat": "E", "action": "bid 4"},
        {"kind": "bid", "seat": "S", "action": "nil"},
        {"kind": "blind_nil", "seat": "N", "action": "blind nil"},
        {"kind": "pass", "seat": "N", "action": None},
        {"kind": "concede", "seat": None, "side": "NS", "winner": "EW"},
    ]
    sentences = run_module(tmp_path, (
        'import { eventWords } from "./words.js";'
        'import { seating } from "./seats.js";'
        f"const table = seating('S', {json.dumps(NAMES)});"
        f"const events = {json.dumps(events)};"
        "console.log(JSON.stringify(events.map((e) => eventWords(e, null, table))));"
    ))
    assert sentences == [
        "West plays the nine of spades.",
        "You play the queen of hearts. West wins the trick.",
        "East bids 4.",
        "You bid nil.",
        "Partner bids blind nil!",
        "Partner passes a card.",
        "You concede. East and West win the match.",
    ]


def test_summary_words_use_the_tables_names_and_one_minus_sign(tmp_path: Path) -> None:
    parts = [
        {"kind": "nil", "points": -100, "seat": "N", "made": False, "number": 0, "tricks": 2},
        {"kind": "contract", "points": -40, "seat": None, "made": False, "number": 4,
         "tricks": 3},
        {"kind": "bags", "points": 2, "seat": None, "made": None, "number": 2, "tricks": 0},
        {"kind": "bag_penalty", "points": -100, "seat": None, "made": None, "number": 1,
         "tricks": 0},
    ]
    set_them = {"side": "EW", "kind": "contract", "points": -60, "seat": None, "made": False,
                "number": 6, "tricks": 5}
    out = run_module(tmp_path, (
        'import { headlineWords, partWords, signed, number } from "./words.js";'
        'import { seating } from "./seats.js";'
        f"const south = seating('S', {json.dumps(NAMES)});"
        # Online, a person may sit East: the same words, seen from there.
        "const east = seating('E', {N: 'Ann', E: 'You', S: 'Bo', W: 'Partner'});"
        f"const parts = {json.dumps(parts)};"
        f"const setThem = {json.dumps(set_them)};"
        "console.log(JSON.stringify({"
        "  lines: parts.map((p) => `${partWords(p, south)} ${signed(p.points)}`),"
        "  headline: headlineWords({side: 'NS', ...parts[0]}, south),"
        "  set: headlineWords(setThem, south), setSeenByEast: headlineWords(setThem, east),"
        "  total: number(-47), sides: [east.sideName('EW'), east.sideName('NS')],"
        "  places: ['bottom', 'left', 'top', 'right'].map((p) => east.seatAt(p)),"
        "}));"
    ))
    assert out["lines"] == [
        "Partner's nil failed \u2212100",
        "Contract 4 set (3 tricks) \u221240",
        "2 bags +2",
        "Bag penalty \u2212100",
    ]
    assert out["headline"] == "Partner's nil failed: \u2212100"
    assert out["set"] == "You set East and West: \u221260"
    assert out["setSeenByEast"] == "Ann and Bo set you: \u221260"
    assert out["total"] == "\u221247"
    assert out["sides"] == ["You and Partner", "Ann and Bo"]
    assert out["places"] == ["E", "S", "W", "N"]


def test_blind_nil_and_bag_penalty_words_name_the_table_with_one_minus_sign(
    tmp_path: Path,
) -> None:
    """Blind nils made and failed, and bag penalties on either side, in the table's names."""
    parts = [
        {"side": "NS", "kind": "blind_nil", "points": 200, "seat": "S", "made": True,
         "number": 0, "tricks": 0},
        {"side": "NS", "kind": "blind_nil", "points": -200, "seat": "N", "made": False,
         "number": 0, "tricks": 1},
        {"side": "EW", "kind": "blind_nil", "points": -200, "seat": "W", "made": False,
         "number": 0, "tricks": 3},
        {"side": "EW", "kind": "blind_nil", "points": 200, "seat": "E", "made": True,
         "number": 0, "tricks": 0},
        {"side": "NS", "kind": "bag_penalty", "points": -100, "seat": None, "made": None,
         "number": 1, "tricks": 0},
        {"side": "EW", "kind": "bag_penalty", "points": -200, "seat": None, "made": None,
         "number": 2, "tricks": 0},
    ]
    out = run_module(tmp_path, (
        'import { headlineWords, partWords, signed } from "./words.js";'
        'import { seating } from "./seats.js";'
        f"const south = seating('S', {json.dumps(NAMES)});"
        f"const parts = {json.dumps(parts)};"
        "console.log(JSON.stringify({"
        "  lines: parts.map((p) => `${partWords(p, south)} ${signed(p.points)}`),"
        "  headlines: parts.map((p) => headlineWords(p, south)),"
        "}));"
    ))
    assert out["lines"] == [
        "Your blind nil made +200",
        "Partner's blind nil failed \u2212200",
        "West's blind nil failed \u2212200",
        "East's blind nil made +200",
        "Bag penalty \u2212100",
        "Bag penalty \u00d7 2 \u2212200",
    ]
    assert out["headlines"] == [
        "Your blind nil made: +200",
        "Partner's blind nil failed: \u2212200",
        "West's blind nil failed: \u2212200",
        "East's blind nil made: +200",
        "Your bags cost \u2212100",
        "East and West's bags cost \u2212200",
    ]
    for words in out["lines"] + out["headlines"]:
        # One minus sign (U+2212) everywhere: never a hyphen before a number, never "--".
        assert "-" not in words, words
        assert not any(seat in words.split() for seat in ("N", "E", "S", "W", "North",
                                                           "South")), words
