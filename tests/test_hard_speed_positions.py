"""``hard_speed.py --positions``: Hard timed at the recorded card plays of a strength run.

The late defence against a nil is too rare in fresh games against Normal to time, so the
benchmark can replay a ``strength.py --details`` file and time Hard at exactly the positions
chosen: side a's card plays, from a trick on, while an opponent's nil is alive.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import hard_speed  # noqa: E402
from varaq import Game  # noqa: E402
from varaq.actions import BID  # noqa: E402
from varaq.bots.normal import choose_play  # noqa: E402


def _nil_record(path: Path) -> tuple[Game, int, list[int]]:
    """A details file of one table: a seeded deal, East's nil against three bids of 3, every
    card Normal's.  Returns the game at its first lead, the nil's seat and the cards played."""
    g = Game("classic", seed=238)
    g.deal()
    dealt, dealer = list(g.hands), g.dealer
    nil = (dealer + 2) & 3
    for _ in range(4):
        g.apply(BID + (0 if g.turn == nil else 3))
    start = g.copy()
    plays = []
    while len(g.tricks) < 13:
        card = choose_play(g.view(g.turn)).action
        plays.append(card)
        g.apply(card)
    table = {"a_side": 0, "dealer": dealer, "dealt": dealt, "bids": list(g.bids),
             "blind": [False] * 4, "plays": plays}
    path.write_text(json.dumps({"deal": 0, "tables": [table]}) + "\n", encoding="utf-8")
    return start, nil, plays


def _expected(g: Game, nil: int, plays: list[int], from_trick: int) -> int:
    """Side 0's card plays from ``from_trick`` tricks played while the nil has no trick,
    counted by walking the hand again without the benchmark's code."""
    n = 0
    for card in plays:
        if g.turn & 1 == 0 and len(g.tricks) >= from_trick and not g.taken[nil]:
            n += 1
        g.apply(card)
    return n


def test_positions_against_a_nil_time_side_a_from_the_trick_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deals.jsonl"
    g, nil, plays = _nil_record(path)
    expected = _expected(g, nil, plays, 6)
    assert nil == 1 and expected > 0
    assert hard_speed.main(["--positions", str(path), "--from-trick", "6", "--against-nil",
                            "--samples", "2", "--decisions", "100"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["all_decisions"]["n"] == expected
    turns = out["card_plays_by_turn"]
    assert turns["lead"]["n"] + turns["follow"]["n"] == expected
    assert (out["positions"], out["from_trick"], out["against_nil"]) == (str(path), 6, True)
    assert out["positions_available"] == expected


def test_positions_stop_at_the_decisions_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deals.jsonl"
    _nil_record(path)
    assert hard_speed.main(["--positions", str(path), "--samples", "2",
                            "--decisions", "5"]) == 0
    assert json.loads(capsys.readouterr().out)["all_decisions"]["n"] == 5


@pytest.mark.parametrize(("argv", "reason"), [
    (["--against-nil"], "--from-trick and --against-nil choose among --positions; give a file"),
    (["--from-trick", "6"],
     "--from-trick and --against-nil choose among --positions; give a file"),
    (["--positions", "missing.jsonl"], "--positions: no such file missing.jsonl"),
    (["--positions", "{file}", "--from-trick", "13"], "--from-trick must be 0 to 12, not 13"),
    (["--positions", "{file}", "--bids-only"],
     "--bids-only times the bids of fresh deals; --positions times recorded card plays"),
])
def test_positions_refuse_bad_use_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        reason: str) -> None:
    path = tmp_path / "deals.jsonl"
    path.write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        hard_speed.main([a.replace("{file}", str(path)) for a in argv])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines()[-1].endswith(f": error: {reason}")


@pytest.mark.parametrize(("text", "why"), [
    ("not json\n", "JSONDecodeError"),
    ('{"deal": 0}\n', "KeyError: 'tables'"),
])
def test_positions_refuse_a_file_that_is_not_a_details_file_before_timing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, why: str) -> None:
    path = tmp_path / "deals.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        hard_speed.main(["--positions", str(path)])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = captured.err.strip().splitlines()[-1]
    assert f": error: --positions: {path} is not a strength.py --details file ({why}" in line


def test_positions_refuse_a_record_whose_cards_are_not_legal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deals.jsonl"
    _nil_record(path)
    record = json.loads(path.read_text(encoding="utf-8"))
    plays = record["tables"][0]["plays"]
    plays[0], plays[1] = plays[1], plays[0]  # the second seat's card led by the first
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        hard_speed.main(["--positions", str(path)])
    assert exit_.value.code == 2
    assert "is not a strength.py --details file (IllegalAction" in capsys.readouterr().err
