"""``benchmarks/strength.py --replay-nils``: the nil deals of a run played again and spliced in;
``--replay-bids``: the same for the deals a tree bids otherwise; ``--nil-deals``: only the deals
with a nil played, found by bidding each first.

The method rests on one claim: every player of the fixed legs decides the same way in the same
position, so the deals replayed with unchanged code come back card for card.  These tests play
a few cheap deals (one layout a decision) to check that claim and the splice around it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
STRENGTH = ROOT / "benchmarks" / "strength.py"
sys.path.insert(0, str(ROOT / "benchmarks"))

import strength  # noqa: E402


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(STRENGTH), "--legs", "hard-v02", "--fixed", "1", "--jobs", "1",
         *args],
        cwd=tmp, capture_output=True, text=True, timeout=300,
    )


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six deals of the leg, written once for the module: ``DIR/base-hard-v02.jsonl``."""
    where = tmp_path_factory.mktemp("replay")
    first = _run(where, "--hard-deals", "6", "--details", "base.jsonl")
    assert first.returncode == 0, first.stderr
    return where / "base-hard-v02.jsonl"


def _table(a_side: int, bids: list[int]) -> dict[str, Any]:
    return {"a_side": a_side, "bids": bids, "dealt": [], "blind": [False] * 4}


def test_nil_deals_are_found_by_the_side_that_bid_them() -> None:
    records = [
        {"deal": 3, "tables": [_table(0, [2, 3, 4, 3]), _table(1, [2, 3, 4, 3])]},
        # Seat 1 bids nil at the table where a sits North-South: b's nil.
        {"deal": 4, "tables": [_table(0, [2, 0, 4, 3]), _table(1, [2, 3, 4, 3])]},
        # Seat 2 bids nil at the table where a sits East-West: b's nil again.
        {"deal": 5, "tables": [_table(0, [2, 3, 4, 3]), _table(1, [2, 3, 0, 3])]},
        # Seat 3 at the table where a sits East-West: a's nil.
        {"deal": 6, "tables": [_table(0, [2, 3, 4, 3]), _table(1, [2, 3, 4, 0])]},
    ]
    assert strength.nil_deals(records) == [4, 5, 6]
    assert strength.nil_deals(records, "a") == [6]
    assert strength.nil_deals(records, "b") == [4, 5]


def test_replayed_nil_deals_come_back_card_for_card(base: Path, tmp_path: Path) -> None:
    records = strength.read_details(str(base))
    nils = strength.nil_deals(records)
    assert len(records) == 6 and nils, "the first deals of seed 1 hold a nil"

    again = _run(tmp_path, "--replay-nils", str(base), "--details", "again.jsonl")
    assert again.returncode == 0, again.stderr
    spliced = tmp_path / "again-hard-v02.jsonl"
    # Unchanged code: the replayed deals are the very ones recorded, in the base's order.
    assert spliced.read_text() == base.read_text()
    summary = json.loads(again.stdout)["legs"]["hard-v02 (nil deals replayed)"]
    assert (summary["replayed"], summary["of"]) == (len(nils), 6)
    assert summary["difference"]["pairs"] == len(nils)
    # A replay's figures cover some deals only, so they are not read against the goals.
    assert "hard_beats_hard_v02_by" not in json.loads(again.stdout)["goals"]


def test_splice_puts_each_replayed_deal_in_its_place_as_it_comes(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [{"deal": d, "mark": "old"} for d in (0, 1, 2, 5, 7)]
    path = tmp_path / "out.jsonl"

    def written() -> list[tuple[int, str]]:
        return [(x["deal"], x["mark"]) for x in map(json.loads, path.read_text().splitlines())]

    with open(path, "w", encoding="utf-8") as out:
        splice = strength.Splice(rows, out)
        splice({"deal": 1, "mark": "new"})
        # Stopped here, the file already holds the base's first deals, spliced.
        assert written() == [(0, "old"), (1, "new")]
        splice({"deal": 5, "mark": "new"})
        splice.finish()
    assert written() == [(0, "old"), (1, "new"), (2, "old"), (5, "new"), (7, "old")]


def test_replayed_bids_play_only_the_deals_bid_otherwise(base: Path, tmp_path: Path) -> None:
    records = strength.read_details(str(base))
    # A base whose deal 2 was bid otherwise (as a tree with other bids would have it): that
    # deal alone is played again, and comes back as today's tree bids and plays it.
    changed = [json.loads(json.dumps(r)) for r in records]
    bids = changed[2]["tables"][0]["bids"]
    bids[0] = 13 if bids[0] != 13 else 12
    (tmp_path / "changed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in changed))
    again = _run(tmp_path, "--replay-bids", "changed.jsonl", "--details", "again.jsonl")
    assert again.returncode == 0, again.stderr
    assert "1 of 6 deals bid otherwise" in again.stderr
    assert (tmp_path / "again-hard-v02.jsonl").read_text() == base.read_text()
    summary = json.loads(again.stdout)["legs"]["hard-v02 (deals bid otherwise replayed)"]
    assert (summary["replayed"], summary["of"], summary["difference"]["pairs"]) == (1, 6, 1)
    assert "nil_side" not in summary


def test_replayed_bids_with_unchanged_code_play_nothing(base: Path, tmp_path: Path) -> None:
    again = _run(tmp_path, "--replay-bids", str(base), "--details", "again.jsonl")
    assert again.returncode == 0, again.stderr
    assert "0 of 6 deals bid otherwise" in again.stderr
    assert (tmp_path / "again-hard-v02.jsonl").read_text() == base.read_text()
    summary = json.loads(again.stdout)["legs"]["hard-v02 (deals bid otherwise replayed)"]
    assert (summary["replayed"], summary["of"]) == (0, 6)


@pytest.mark.parametrize("option", ["--replay-nils", "--replay-bids"])
@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--seed", "2"], "was not dealt with this --seed and --rules"),
        (["--legs", "hard-v02,cardplay-gap"], "needs exactly one of the fixed legs"),
        (["--details", "base.jsonl"], "must not be the base file"),
    ],
)
def test_a_replay_that_cannot_pair_is_refused_with_one_line(
    base: Path, option: str, args: list[str], reason: str,
) -> None:
    before = base.read_text()
    details = [] if "--details" in args else ["--details", "other.jsonl"]
    # Run beside the base, so "--details base.jsonl" names the base file itself.
    refused = _run(base.parent, option, str(base), *details, *args)
    assert refused.returncode == 2
    last = refused.stderr.strip().splitlines()[-1]
    assert last.startswith(f"strength.py: error: {option}") and reason in last
    assert base.read_text() == before
    assert not (base.parent / "other-hard-v02.jsonl").exists()


def test_both_replays_at_once_are_refused_with_one_line(base: Path, tmp_path: Path) -> None:
    refused = _run(tmp_path, "--replay-nils", str(base), "--replay-bids", str(base),
                   "--details", "x.jsonl")
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        "strength.py: error: --replay-nils and --replay-bids: choose one")


def test_a_base_without_a_nil_is_refused_with_one_line(base: Path, tmp_path: Path) -> None:
    records = strength.read_details(str(base))
    nils = set(strength.nil_deals(records))
    plain = [r for r in records if r["deal"] not in nils]
    (tmp_path / "plain.jsonl").write_text("".join(json.dumps(r) + "\n" for r in plain))
    refused = _run(tmp_path, "--replay-nils", "plain.jsonl", "--details", "other.jsonl")
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1].endswith("has a nil bid by side either")
    assert not (tmp_path / "other-hard-v02.jsonl").exists()


def test_nil_deals_alone_are_the_base_runs_deals_with_a_nil_card_for_card(
    base: Path, tmp_path: Path,
) -> None:
    records = strength.read_details(str(base))
    nils = set(strength.nil_deals(records, "b"))
    assert nils, "the first deals of seed 1 hold a nil of side b"
    only = _run(tmp_path, "--hard-deals", "6", "--nil-deals", "--nil-side", "b",
                "--details", "only.jsonl")
    assert only.returncode == 0, only.stderr
    played = strength.read_details(str(tmp_path / "only-hard-v02.jsonl"))
    # Bid first, then played: the same deals the whole run played, card for card.
    assert played == [r for r in records if r["deal"] in nils]
    leg = json.loads(only.stdout)["legs"]["hard-v02"]
    assert (leg["nil_side"], leg["bid"], leg["with_nils"]) == ("b", 6, len(nils))
    assert f"{len(nils)} of 6 deals with a nil bid by side b" in only.stderr


def test_nil_deals_with_a_replay_or_another_leg_is_refused_with_one_line(tmp_path: Path) -> None:
    for args in (["--replay-nils", "x.jsonl", "--details", "y.jsonl"],
                 ["--legs", "hard-v02,normal-easy"]):
        refused = _run(tmp_path, "--hard-deals", "2", "--nil-deals", *args)
        assert refused.returncode == 2
        assert refused.stderr.strip().splitlines()[-1].startswith(
            "strength.py: error: --nil-deals goes with the fixed legs only")


def test_table_bids_are_the_bids_a_table_asks_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--table-bids``: the arena's Hard bids what :func:`hard_bid` gives (the table's bid, the
    Hint's, the review's), not a bid priced over the fixed layouts."""
    import random

    import ceiling_bots as cb
    from varaq import Game
    from varaq.bots.advice import hard_bid

    monkeypatch.setenv("VARAQ_BENCH_SAMPLES", "1")
    for seed in range(40):  # the first deal where one layout and the table's twenty disagree
        game = Game("classic", seed=seed)
        game.deal()
        view = game.view(game.turn)
        fixed = cb.NewHard().decide(view, random.Random(0))
        table = hard_bid(view)
        if fixed.action != table.action:
            break
    else:
        pytest.fail("no deal where the fixed layouts and the table's bid disagree")
    monkeypatch.setenv("VARAQ_BENCH_TABLE_BIDS", "1")
    assert cb.NewHard().decide(view, random.Random(0)) == table
