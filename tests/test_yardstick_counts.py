"""The yardstick at a table's counts: Hard 0.2's bids and cards over layouts of their own.

At a table Hard 0.2's budget gave its bids far fewer layouts than its cards (a bid's layout is a
whole hand played out four ways), so a fair run at the table's counts needs the two set apart:
``HardV02Bot(bid_samples=N)``, ``strength.py --v02-bid-samples N``, and ``hard_speed.py``
reporting what a searched bid got.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from hard_v02 import HardV02Bot  # noqa: E402
from varaq import Game  # noqa: E402
from varaq.engine import PLAY  # noqa: E402
from varaq.view import View  # noqa: E402


def _first_bid_view(seed: int = 3) -> tuple[Game, View]:
    game = Game("classic", seed=seed)
    game.deal()
    return game, game.view(game.turn)


def _counted(reason: str) -> int:
    return int(reason.rsplit(" of ", 1)[1].split()[0])


def test_bid_samples_price_a_bid_over_that_many_layouts_and_leave_the_cards_alone() -> None:
    game, view = _first_bid_view()
    bot = HardV02Bot(samples=3, bid_samples=7)
    bid = bot.decide(view, random.Random(0))
    assert _counted(bid.reason.split(",")[0]) == 7
    while game.phase != PLAY:
        game.apply(bot.decide(game.view(game.turn), random.Random(1)).action)
    for _ in range(8):  # the first searched card play gets the card count, not the bid count
        play = bot.decide(game.view(game.turn), random.Random(2))
        if "layouts" in play.reason:
            assert _counted(play.reason) == 3
            break
        game.apply(play.action)
    else:
        pytest.fail("no searched card play in the first eight cards")


def test_without_bid_samples_a_bid_gets_the_fixed_count() -> None:
    _, view = _first_bid_view()
    bid = HardV02Bot(samples=3).decide(view, random.Random(0))
    assert _counted(bid.reason.split(",")[0]) == 3


def test_bid_samples_below_one_are_refused() -> None:
    with pytest.raises(ValueError, match="bid_samples must be at least 1"):
        HardV02Bot(samples=3, bid_samples=0)


def test_the_arena_builds_hard_v02_with_the_bid_count(monkeypatch: pytest.MonkeyPatch) -> None:
    import ceiling_bots as cb

    monkeypatch.setenv("VARAQ_BENCH_SAMPLES", "2")
    monkeypatch.setenv("VARAQ_BENCH_V02_BID_SAMPLES", "5")
    assert (cb.HardV02().samples, cb.HardV02().bid_samples) == (2, 5)
    monkeypatch.setenv("VARAQ_BENCH_V02_BID_SAMPLES", "")
    assert cb.HardV02().bid_samples is None


def test_strength_refuses_a_bid_count_below_one_with_one_line(tmp_path: Path) -> None:
    refused = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "strength.py"), "--legs", "hard-v02",
         "--fixed", "1", "--v02-bid-samples", "0", "--details", "d.jsonl"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        "strength.py: error: --v02-bid-samples must be at least 1, not 0")
    assert not list(tmp_path.iterdir())


def test_hard_speed_reports_the_layouts_of_hard_v02s_bids() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "hard_speed.py"), "--bot", "hard-v02",
         "--decisions", "12", "--samples", "2"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["layouts_per_searched_bid"]["p50"] == 2
    assert out["layouts_per_searched_play"]["p50"] == 2
