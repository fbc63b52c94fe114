"""Easy and Normal make only legal decisions, in every phase of every preset and variation,
decide the same way given the same view and seed, and explain themselves in one sentence."""

from __future__ import annotations

import random

import pytest

from varaq import Game, Rules
from varaq.actions import BLIND_NIL
from varaq.bots import Bot, make_bot

VARIANTS: dict[str, Rules] = {
    "classic": Rules.named("classic"),
    "short": Rules.named("short"),
    "varaq": Rules.named("varaq"),
    "daily": Rules.named("daily"),
    "jokers": Rules.named("classic").with_options(jokers=True),
    "two_clubs_leads": Rules.named("classic").with_options(two_clubs_leads=True),
    "no_nil": Rules.named("varaq").with_options(nil=False),
    "board_4": Rules.named("classic").with_options(min_team_bid=4),
    "blind_nil_no_exchange": Rules.named("classic").with_options(exchange=0),
    "exchange_3_jokers": Rules.named("classic").with_options(exchange=3, jokers=True),
    "no_bag_penalty_boston": Rules.named("varaq").with_options(bag_penalty=0, boston_bonus=200),
    "bag_limit_5_mercy": Rules.named("classic").with_options(bag_limit=5, mercy=-200),
}

BOTS = ("easy", "normal")


def _play(rules: Rules, bots: list[Bot], seed: int, hands: int, start: tuple[int, int]) -> int:
    """Play ``hands`` hands with every seat's decision checked; return the decisions made."""
    g = Game(rules, seed=seed, totals=start)
    rngs = [random.Random(f"{seed}:{s}") for s in range(4)]
    decisions = 0
    while not g.is_over and g.hand_no < hands:
        if g.phase_name == "deal":
            g.deal()
            continue
        seat = g.turn
        view = g.view(seat)
        if view.cards_hidden:
            assert view.hand == 0
        decision = bots[seat].decide(view, rngs[seat])
        assert decision.action in view.legal, (
            f"{bots[seat].name} chose {decision.action} in {view.phase}; legal {view.legal}"
        )
        assert decision.reason and "\n" not in decision.reason
        g.apply(decision.action, seat=seat)
        decisions += 1
    return decisions


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("name", BOTS)
def test_bot_plays_only_legal_actions(name: str, variant: str) -> None:
    rules = VARIANTS[variant]
    bot = make_bot(name)
    rival = make_bot("random")
    decisions = 0
    for seed in range(6):
        # Mixed tables reach positions a bot would not create itself; a start 250 behind
        # makes blind nil (and its exchange) come up whenever the rules allow it.
        seats: list[Bot] = [bot, rival, bot, rival] if seed % 2 else [bot, bot, bot, bot]
        start = (0, 250) if seed % 3 == 0 else ((300, 0) if seed % 3 == 1 else (0, 0))
        decisions += _play(rules, seats, seed, hands=3, start=start)
    assert decisions >= 6 * 52


def test_blind_nil_and_exchange_come_up_in_the_legal_games() -> None:
    """The legality sweep above really reaches blind nil decisions and exchanges."""
    rules = VARIANTS["classic"]
    bot = make_bot("normal")
    seen_blind = seen_exchange = False
    for seed in range(20):
        g = Game(rules, seed=seed, totals=(0, 250))
        g.deal()
        rng = random.Random(seed)
        while g.phase_name not in ("deal", "over"):
            view = g.view(g.turn)
            action = bot.act(view, rng)
            seen_blind |= action == BLIND_NIL
            seen_exchange |= view.phase == "exchange"
            g.apply(action)
    assert seen_blind and seen_exchange


@pytest.mark.parametrize("name", BOTS)
def test_same_view_and_seed_give_the_same_decision(name: str) -> None:
    bot = make_bot(name)
    for seed in range(8):
        g = Game(VARIANTS["classic"], seed=seed, totals=(0, 250) if seed % 2 else (0, 0))
        g.deal()
        step = 0
        driver = random.Random(seed)
        while g.phase_name not in ("deal", "over"):
            view = g.view(g.turn)
            first = bot.decide(view, random.Random(step))
            again = make_bot(name).decide(g.copy().view(g.turn), random.Random(step))
            assert first == again
            g.apply(bot.act(view, driver))
            step += 1


@pytest.mark.parametrize("name", BOTS)
def test_bot_refuses_to_decide_out_of_turn(name: str) -> None:
    g = Game("classic", seed=1)
    g.deal()
    idle = (g.turn + 1) % 4
    with pytest.raises(ValueError, match="not this seat's turn"):
        make_bot(name).decide(g.view(idle), random.Random(0))


@pytest.mark.parametrize("name", BOTS)
def test_unknown_options_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="takes no options"):
        make_bot(name, budget=1.0)
