"""``benchmarks/layout_regret.py``: what a play decision loses by dealing fewer layouts, on one
recorded table (the nil deal of ``test_nil_studies``)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import layout_regret  # noqa: E402
from test_nil_studies import TABLE, one_table_file  # noqa: E402


@pytest.fixture
def record(tmp_path: Path) -> str:
    return one_table_file(tmp_path)


def test_decisions_are_real_choices_of_the_recorded_hand(record: str) -> None:
    found = layout_regret.decisions([record], 6, random.Random(3))
    assert len(found) == 6
    for d in found:
        assert len(d.candidates) >= 2
        assert set(d.candidates) <= set(d.view.legal)
        # The position is the recorded hand's: every card played so far is the record's.
        played = [c for t in d.view.tricks for c in t.cards] + [c for _, c in d.view.trick]
        assert played == TABLE["plays"][:len(played)]


def test_regret_is_never_negative_and_the_rows_add_up(record: str) -> None:
    out = layout_regret.study([record], positions=4, seed=5, truth=12, pool=10,
                              sizes=(2, 10), repeats=4)["regret_by_layouts"]
    rows = [r for name, r in out.items() if name != "all"]
    assert sum(r["decisions"] for r in rows) == out["all"]["decisions"] == 4
    for r in out.values():
        assert min(r["2"], r["10"], r["normal"]) >= 0.0


def test_the_same_seed_gives_the_same_study(record: str) -> None:
    def run() -> dict[str, Any]:
        return layout_regret.study([record], positions=2, seed=9, truth=6, pool=6, sizes=(3,),
                                   repeats=2)

    assert run() == run()


@pytest.mark.parametrize(("args", "says"), [
    (["--sizes", "24,x"], "--sizes must be whole numbers"),
    (["--sizes", "700"], "a size cannot exceed --pool"),
    (["--positions", "0"], "must be at least 1"),
])
def test_bad_arguments_are_one_line(
    args: list[str], says: str, record: str, capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        layout_regret.main([record, *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert says in err[-1] and "Traceback" not in "\n".join(err)


def test_a_missing_or_broken_details_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    for path in (str(tmp_path / "missing.jsonl"), str(broken)):
        with pytest.raises(SystemExit):
            layout_regret.main([path, "--positions", "1"])
        err = capsys.readouterr().err.strip().splitlines()
        assert "error: cannot read the details files:" in err[-1]
        assert "Traceback" not in "\n".join(err)
