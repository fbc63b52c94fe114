"""``bid_evidence.py``: the bidders' real hands ranked among the layouts Hard deals for them.

The benchmark is how the width of the nil fit (``sampling.NIL_SPREAD``) was chosen, so it
must count every bid once, rank the real hand by the statistic the fit reads, and really
apply a width it is given.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bid_evidence  # noqa: E402
import varaq.bots.sampling as sampling  # noqa: E402
from varaq import Game  # noqa: E402


def _record(path: Path, deals: int = 1) -> None:
    """A details file of ``deals`` seeded deals, one table each: East bids nil, the others 3."""
    lines = []
    for i in range(deals):
        g = Game("classic", seed=238 + i)
        g.deal()
        nil = 1
        bids = [0 if s == nil else 3 for s in range(4)]
        table = {"a_side": 0, "dealer": g.dealer, "dealt": list(g.hands), "bids": bids,
                 "blind": [False] * 4, "plays": []}
        lines.append(json.dumps({"deal": i, "tables": [table]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _run(args: list[str], capsys: pytest.CaptureFixture[str],
         monkeypatch: pytest.MonkeyPatch) -> dict:
    # The script sets the module's widths and centre when asked: put them back after the test.
    for name in bid_evidence._SETTINGS:
        monkeypatch.setattr(sampling, name.upper(), getattr(sampling, name.upper()))
    assert bid_evidence.main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_rank_among_counts_ties_half() -> None:
    assert bid_evidence.rank_among(2.0, [1.0, 2.0, 3.0, 4.0]) == pytest.approx(0.375)
    assert bid_evidence.rank_among(0.0, [1.0, 2.0]) == 0.0
    assert bid_evidence.rank_among(5.0, [1.0, 2.0]) == 1.0


def test_every_bid_is_ranked_once_by_its_side(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "deals.jsonl"
    _record(path, deals=3)
    out = _run([str(path), "--layouts", "12"], capsys, monkeypatch)
    # East (side b, a_side 0) bid the three nils; the numbers: North and South (a), West (b).
    assert out["nil"]["b"]["bids"] == 3 and "a" not in out["nil"]
    assert out["number"]["a"]["bids"] == 6 and out["number"]["b"]["bids"] == 3
    for kind in ("nil", "number"):
        for group in out[kind].values():
            assert sum(group["quintiles"]) == group["bids"]
            assert 0.0 <= group["mean_rank"] <= 1.0
    # The nil hand's real danger, read without the benchmark's code.
    from varaq.bots.bidding import nil_danger
    actual = [nil_danger(_hand(238 + i, 1)) for i in range(3)]
    assert out["nil"]["b"]["actual_mean"] == pytest.approx(sum(actual) / 3, abs=1e-3)
    # Only the cards the reader (South, East's left-hand opponent) cannot see are chances.
    cards = out["nil"]["b"]["high_cards_in_the_nil_hand"]
    assert all(0 < v["chances"] <= 3 * (3 if "side" in k else 1) for k, v in cards.items())


def _hand(seed: int, seat: int) -> int:
    g = Game("classic", seed=seed)
    g.deal()
    return g.hands[seat]


@pytest.mark.parametrize("flag, low, high, kind, sides", [
    # A narrower nil fit deals safer nil hands (less nil danger in the layouts).
    ("--nil-spread", 0.2, 3.0, "nil", ("b",)),
    # A number fit centred higher deals stronger hands to the number bidders.
    ("--bid-shift", -1.0, 1.5, "number", ("a", "b")),
])
def test_a_setting_moves_the_layouts_and_not_the_real_hands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, flag: str, low: float, high: float, kind: str,
        sides: tuple[str, ...]) -> None:
    path = tmp_path / "deals.jsonl"
    _record(path, deals=2)
    lo = _run([str(path), "--layouts", "60", flag, str(low)], capsys, monkeypatch)
    hi = _run([str(path), "--layouts", "60", flag, str(high)], capsys, monkeypatch)
    key = flag[2:].replace("-", "_")
    assert (lo[key], hi[key]) == (low, high)
    for side in sides:
        assert lo[kind][side]["layouts_mean"] < hi[kind][side]["layouts_mean"]
        # The real hands do not move; their rank among the layouts does.
        assert lo[kind][side]["actual_mean"] == hi[kind][side]["actual_mean"]
        assert lo[kind][side]["mean_rank"] > hi[kind][side]["mean_rank"]


@pytest.mark.parametrize("args, words", [
    (["--layouts", "0"], "--layouts must be at least 1"),
    (["--deals", "0"], "--deals must be at least 1"),
    (["--nil-spread", "0"], "--nil-spread must be above 0"),
    (["--bid-spread", "11"], "--bid-spread must be above 0 and at most 10"),
    (["--bid-shift", "-4"], "--bid-shift must be between -3 and 3 tricks"),
])
def test_bad_settings_are_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
        words: str) -> None:
    path = tmp_path / "deals.jsonl"
    _record(path)
    with pytest.raises(SystemExit):
        bid_evidence.main([str(path), *args])
    err = capsys.readouterr()
    last = err.err.strip().splitlines()[-1]
    assert err.out == "" and "error:" in last and words in last


@pytest.mark.parametrize("text", ["not json\n", '{"deal": 0}\n',
                                  '{"deal": 0, "tables": [{"a_side": 0}]}\n'])
def test_a_file_that_is_not_a_details_file_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit):
        bid_evidence.main([str(path)])
    err = capsys.readouterr()
    assert err.out == ""
    assert "is not a strength.py --details file" in err.err.strip().splitlines()[-1]


def test_a_missing_file_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        bid_evidence.main([str(tmp_path / "none.jsonl")])
    assert "no such file" in capsys.readouterr().err
