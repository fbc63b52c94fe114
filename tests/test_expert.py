"""The Expert level: Hard's search with more thought, offered by name like the others."""

from __future__ import annotations

import random

from varaq import Game
from varaq.bots import BOT_NAMES, Bot, make_bot
from varaq.bots.hard import EXPERT_BUDGET, ExpertBot, HardBot


def test_expert_is_built_by_name_and_thinks_longer_than_hard() -> None:
    bot = make_bot("expert")
    assert isinstance(bot, ExpertBot) and isinstance(bot, Bot)
    assert "expert" in BOT_NAMES
    assert bot.time_budget == EXPERT_BUDGET > HardBot().time_budget
    assert bot.solver_cards >= HardBot().solver_cards


def test_expert_plays_a_hand_legally_and_deterministically_with_fixed_layouts() -> None:
    g = Game("classic", seed=11)
    g.deal()
    bot = make_bot("expert", samples=3)
    while not g.log:
        view = g.view(g.turn)
        first = bot.decide(view, random.Random(7))
        again = bot.decide(view, random.Random(7))
        assert first == again
        assert first.action in view.legal and first.reason
        g.apply(first.action)


def test_expert_takes_the_arena_budget_option() -> None:
    assert make_bot("expert", budget=1.2).time_budget == 1.2
