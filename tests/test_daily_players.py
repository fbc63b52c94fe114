"""``benchmarks/daily_players.py``: the daily's Hard now against the daily's Hard before."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import daily_players
from varaq import Game
from varaq.bots.advice import hard_bid
from varaq.daily import DAILY_RULES, DAILY_SAMPLES


def test_the_two_sides_differ_only_in_the_layouts_of_their_cards() -> None:
    now, before = daily_players.DailyHardNow(), daily_players.DailyHardBefore()
    assert (now.bot.samples, before.bot.samples) == (DAILY_SAMPLES, 20)
    g = Game(DAILY_RULES, seed=3)
    g.deal()
    view = g.view(g.turn)
    bid = hard_bid(view).action
    assert now.act(view, random.Random(1)) == before.act(view, random.Random(2)) == bid


@pytest.mark.parametrize("args", [["--deals", "0"], ["--jobs", "0"], ["--minutes", "0"]])
def test_bad_arguments_are_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        daily_players.main(args)
    err = capsys.readouterr().err.strip().splitlines()
    assert "must be at least 1" in err[-1] and "Traceback" not in "\n".join(err)
