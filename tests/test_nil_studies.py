"""The benchmarks' nil studies on one real deal: ``nil_leads.py`` (the defence's early leads
against a nil, judged by proof) and ``details.py --nil-sides`` (the counts behind Hard's model
of a nil's two sides).

The record is one table of a strength run (seed 4, deal 17): East (seat 1) bid nil holding
S T2, H AJ94, D 93, C QT943.  After two tricks South (seat 2), holding S QJ93, H 5, D KT752,
C A, leads.  East still holds the A, 9 and 4 of hearts, and South's five of hearts is its last
heart: leading it now is the only lead after which a defence seeing every card can still force
a trick on the nil.  South led the two of diamonds at the table and the nil held.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import details  # noqa: E402
import nil_leads  # noqa: E402

TABLE = {
    "a_side": 0, "dealer": 2,
    "dealt": [1178751773868056, 141605341250950, 915893809133568, 2267348703117921],
    "bids": [1, 0, 4, 4], "blind": [False, False, False, False], "tricks": [4, 0, 4, 5],
    "made": [True, True], "nil_made": [None, True, None, None], "new_bags": [3, 1],
    "score": [53, 141],
    "plays": [37, 31, 35, 26, 9, 3, 7, 11, 13, 19, 17, 14, 25, 15, 20, 21, 34, 36, 33, 29, 22,
              8, 16, 30, 32, 28, 48, 0, 46, 51, 44, 47, 5, 4, 1, 12, 49, 41, 45, 39, 18, 6, 23,
              38, 50, 2, 40, 42, 27, 10, 24, 43],
}
FIVE_OF_HEARTS, TWO_OF_DIAMONDS = 29, 13


def one_table_file(tmp_path: Path) -> str:
    """:data:`TABLE` as a details file of one deal (other benchmarks' tests read it too)."""
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"deal": 0, "tables": [TABLE]}) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def record(tmp_path: Path) -> str:
    return one_table_file(tmp_path)


def test_the_only_lead_that_keeps_the_nil_breakable_is_found(record: str) -> None:
    [pos] = nil_leads.positions(record)
    assert (len(pos.game.tricks), pos.game.turn, pos.nil) == (2, 2, 1)
    assert [c for c, good in pos.good.items() if good] == [FIVE_OF_HEARTS]
    assert len(pos.good) == 7  # one card per run of equivalent cards
    assert pos.table == TWO_OF_DIAMONDS


def test_leads_after_the_first_tricks_asked_for_are_left_out(record: str) -> None:
    assert list(nil_leads.positions(record, tricks=2)) == []


def test_leads_before_the_trick_asked_from_are_left_out(record: str) -> None:
    assert len(list(nil_leads.positions(record, tricks=13, first=2))) == 1  # the third trick's
    assert list(nil_leads.positions(record, tricks=13, first=3)) == []


def test_study_shares_and_playouts_add_up(record: str) -> None:
    out = nil_leads.study([record], layouts=2, continuation=0)
    assert out["positions"] == 1
    shares = out["good_lead_share"]
    assert shares["random"] == round(1 / 7, 3)
    assert shares["table"] == 0.0
    assert "true_layout_hard" not in shares  # --continuation 0 skips those playouts
    after = out["nil_broken_after"]["true_layout_normal"]
    assert (after["good lead"]["leads"], after["other lead"]["leads"]) == (1, 6)
    # Each way's lead against the best one on the actual deal: the judge's own pick is the best.
    below = out["points_below_best_lead"]["true_layout_normal"]
    assert below["true_layout_normal"] == 0.0
    assert all(points >= 0 for points in below.values())


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        nil_leads.main(["x.jsonl", "--tricks", "0"])
    assert "--tricks must be between 1 and 13" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        nil_leads.main(["x.jsonl", "--tricks", "3", "--from-trick", "3"])
    assert "--from-trick must be from 0 to one below --tricks" in capsys.readouterr().err


def test_nil_sides_sets_the_model_s_counts_beside_the_table_s(record: str) -> None:
    # East-West's perfect count from the opening lead is 6 tricks; West alone, East's cards only
    # helping it, 4; West took 5 while the nil held.  North-South can take 7 and bid 1 + 4: two
    # tricks to spare for breaking the nil.
    out = details.nil_sides(record)
    assert out["counts"] == {"a": {}, "b": {"held": {
        "nils": 1, "side_perfect_count": 6.0, "partner_alone_perfect_count": 4.0,
        "partner_took": 5.0, "nil_took": 0.0}}}
    assert out["by_defence_slack"] == {"2": {"nils": 1, "held": 1.0, "danger": 0.35,
                                             "model": 0.33}}


def test_follows_reads_the_nil_s_own_ducks_by_the_sampler_s_rule(record: str) -> None:
    # East ducks five times with two safe cards or more: the JH (from A J 9 4 under the KH),
    # the 9C (from Q T 9 4 3 under the JC: the ten touches it), the 9H (from A 9 4 under the
    # QH), the TS (from T 2 under the AS) and the 3C (from Q 4 3 under the 7C: touching the
    # four).  None kept a higher safe card with a card out between.
    out = details.follows(record)
    assert out["b"]["the nil's own duck"] == {"follows": 5, "kept_higher": 0.0}
    assert out["a"] == {"defending a live nil": {"follows": 8, "not_lowest": 0.38}}


@pytest.mark.parametrize("main", [nil_leads.main, details.main], ids=["nil_leads", "details"])
def test_a_missing_or_broken_details_file_is_one_line(
    main: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    for path in (str(tmp_path / "missing.jsonl"), str(broken)):
        with pytest.raises(SystemExit):
            main([path])
        err = capsys.readouterr().err.strip().splitlines()
        assert "error: cannot read the details files:" in err[-1]
        assert [line for line in err if "error" in line] == [err[-1]]  # after the usage
        assert "Traceback" not in "\n".join(err)
