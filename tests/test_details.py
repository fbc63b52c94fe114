"""``benchmarks/details.py --tricks``: the same cards played by each player, nils left out.

The table is read from records written by hand, so every figure can be checked by arithmetic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from deal_helpers import layout
from varaq.cards import parse_card

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import details  # noqa: E402


def _table(a_side: int, bids: list[int], tricks: list[int], score: list[int]) -> dict[str, Any]:
    return {"a_side": a_side, "bids": bids, "tricks": tricks, "score": score}


def _write(path: Path, deals: list[list[dict[str, Any]]]) -> str:
    path.write_text("".join(json.dumps({"deal": i, "tables": t}) + "\n"
                            for i, t in enumerate(deals)), encoding="utf-8")
    return str(path)


def test_tricks_compares_each_side_of_cards_as_both_players_played_them(tmp_path: Path) -> None:
    # Side 0's cards: a (table 0) bids 6 and takes 6 for 60; b (table 1) bids 5 and takes 8
    # for 53.  Side 1's cards: a (table 1) bids 5 and takes 5 for 50; b (table 0) bids 7 and
    # takes 7 for 70.
    plain = [_table(0, [3, 4, 3, 3], [3, 3, 3, 4], [60, 70]),
             _table(1, [2, 3, 3, 2], [4, 2, 4, 3], [53, 50])]
    # A deal with a nil at one table is left out whole.
    nil = [_table(0, [0, 4, 3, 3], [0, 5, 3, 5], [130, -80]),
           _table(1, [2, 3, 3, 2], [4, 2, 4, 3], [53, 50])]
    out = details.tricks(_write(tmp_path / "d.jsonl", [plain, nil]))
    assert out["a"] == {"side_hands": 2, "bid": 5.5, "tricks": 5.5, "bags": 0.0, "set": 0.0,
                        "sets_them": 0.0, "score": 55.0}
    assert out["b"] == {"side_hands": 2, "bid": 6.0, "tricks": 7.5, "bags": 1.5, "set": 0.0,
                        "sets_them": 0.0, "score": 61.5}


def test_tricks_counts_a_set_and_the_set_of_the_other_side(tmp_path: Path) -> None:
    # a is set with both sides' cards: 8 bid, 7 taken at table 0 (side 0's cards); 9 bid, 8
    # taken at table 1 (side 1's).  b, holding the other cards at each table, makes its own
    # contracts and so sets a's: every set of a's is one b counts against the other side.
    deal = [_table(0, [4, 3, 4, 3], [3, 3, 4, 3], [-80, 60]),
            _table(1, [2, 5, 3, 4], [2, 4, 3, 4], [50, -90])]
    out = details.tricks(_write(tmp_path / "d.jsonl", [deal]))
    assert (out["a"]["set"], out["a"]["sets_them"]) == (1.0, 0.0)
    assert (out["b"]["set"], out["b"]["sets_them"]) == (0.0, 1.0)


def test_tricks_without_a_deal_free_of_nils_is_empty(tmp_path: Path) -> None:
    nil = [_table(0, [0, 4, 3, 3], [0, 5, 3, 5], [130, -80]),
           _table(1, [3, 3, 3, 3], [4, 2, 4, 3], [60, 60])]
    assert details.tricks(_write(tmp_path / "d.jsonl", [nil])) == {}


def _scored(a_minus_b: int) -> list[dict[str, Any]]:
    """A deal where a scores ``a_minus_b`` more than b at each table (no bags)."""
    return [
        {"a_side": 0, "score": [a_minus_b, 0], "new_bags": [0, 0], "bids": [3, 3, 3, 3]},
        {"a_side": 1, "score": [0, a_minus_b], "new_bags": [0, 0], "bids": [3, 3, 3, 3]},
    ]


def test_runs_joined_with_a_plus_pair_run_by_run_and_deal_by_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # Two seeds' runs, both numbering their deals from 0: the base scores 10 and 20 on seed 1's
    # deals and 30 on seed 2's; the change scores 2 more on each.  Joined, the base's three
    # deals pair with the change's three, never seed 1's deal 0 with seed 2's.
    base1 = _write(tmp_path / "b1.jsonl", [_scored(10), _scored(20)])
    base2 = _write(tmp_path / "b2.jsonl", [_scored(30)])
    new1 = _write(tmp_path / "n1.jsonl", [_scored(12), _scored(22)])
    new2 = _write(tmp_path / "n2.jsonl", [_scored(32)])
    assert details.main([f"{base1}+{base2}", f"{new1}+{new2}"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deals"] == 3
    base, new = out["files"].values()
    assert base["a_minus_b"]["mean"] == 20.0
    assert new["change"] == {"mean": 2.0, "ci95": [2.0, 2.0]}
    joined = list(details.records(f"{base1}+{base2}"))
    assert [d["deal"] for d in joined] == [0, 1, details.RUN_SPAN]


def test_a_joined_run_that_is_missing_is_refused_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    base = _write(tmp_path / "b.jsonl", [_scored(10)])
    with pytest.raises(SystemExit) as stopped:
        details.main([f"{base}+{tmp_path / 'gone.jsonl'}"])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "error: cannot read the details files: " in last
    assert "gone.jsonl" in last


def test_follows_counts_a_live_nil_going_over_the_winner_with_a_card_under_it(
    tmp_path: Path,
) -> None:
    # West deals, North leads.  Trick 1: North's 9H, East (nil) the KH though it holds the 5H,
    # South the 2H, West the AH: second to the trick, its partner to come.  Trick 2: West's
    # 7C, North's 8C, and East, void in clubs, cuts with the 6S though it holds hearts and
    # diamonds to throw, its partner already played.  Its cut wins, so its lead to trick 3
    # comes from a broken nil (and a lead says nothing here anyway).
    hands = layout(N="9H 8C 2D 2S 3S 4S 5S 3D 4D 5D 6D 7D 8D",
                   E="KH 5H 6S KD 7S 8S 9S TS 3H 4H 6H 7H 9D",
                   S="2H 3C QD 8H TD JC QC KC AC QH TH JH 2C",
                   W="AH 7C JD 4C 5C 6C 9C TC AD KS QS JS AS")
    names = "9H KH 2H AH 7C 8C 6S 3C KD QD"
    table = {"a_side": 0, "dealer": 3, "dealt": hands, "bids": [3, 0, 3, 4],
             "plays": [parse_card(c) for c in names.split()]}
    out = details.follows(_write(tmp_path / "d.jsonl", [[table]]))
    assert out["b"][details.NIL_OVER] == {"follows": 1, "held_one_under": 1.0}
    assert out["b"][details.NIL_OVER_COVERED] == {"follows": 1, "held_one_under": 1.0}
