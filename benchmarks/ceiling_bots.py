"""Players for the arena's ceilings and yardsticks (benchmarks only, never at a table).

- :class:`HardV02` is today's Hard as it was at version 0.2 (``hard_v02.py``), with a fixed
  number of layouts per decision, so a result does not depend on the machine's load;
- :class:`NewHard` is the Hard of ``varaq.bots.hard`` with the same fixed number;
- :class:`NormalV02` bids as today's Normal and plays its cards as Normal 0.2 did
  (``normal_v02.py``): against Normal it measures what Normal's card play has learned since;
- :class:`HardBidsPerfectPlay` bids exactly as Hard does and then plays every card as the
  cheater does (seeing every card): against Hard it measures the gap left in *card play*;
- :class:`ParBidsHardPlay` bids as the cheater does (the best bid on the true deal, judged by
  perfect play: the par of the actual cards) and then plays as Hard: against Hard it
  measures the gap left in *bidding*.

The number of layouts is read from ``VARAQ_BENCH_SAMPLES`` (default 12) when a player is
built, so every process of one arena builds the same players.  With
``VARAQ_BENCH_TABLE_BIDS=1`` (``strength.py --table-bids``) today's Hard bids as a table asks
it (:func:`varaq.bots.advice.hard_bid`: ``BID_SAMPLES`` layouts, seeded by what the bidder
knows) and only its cards get the fixed number: a bid priced over 96 layouts is not the bid a
player meets, which gets 20 layouts to fit in its 0.6 s.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hard_v02 import HardV02Bot
from normal_v02 import choose_play as choose_play_v02
from varaq.bots import Decision
from varaq.bots.advice import bid_seed, hard_bid
from varaq.bots.cheater import CheaterBot
from varaq.bots.hard import HardBot
from varaq.bots.normal import NormalBot, choose_blind, choose_pass
from varaq.engine import BIDDING, BLIND, EXCHANGE, Game
from varaq.view import View

__all__ = ["HardV02", "NewHard", "NormalV02", "HardBidsPerfectPlay", "ParBidsHardPlay",
           "samples"]


def samples() -> int:
    return int(os.environ.get("VARAQ_BENCH_SAMPLES", "12"))


def v02_bid_samples() -> int | None:
    """``VARAQ_BENCH_V02_BID_SAMPLES`` (``strength.py --v02-bid-samples``): Hard 0.2's bids over
    this many layouts instead of the fixed number (unset, the same): at a table its budget gave
    its bids about 108 layouts and its cards about 250."""
    text = os.environ.get("VARAQ_BENCH_V02_BID_SAMPLES", "")
    return int(text) if text else None


class HardV02(HardV02Bot):
    def __init__(self) -> None:
        super().__init__(samples=samples(), bid_samples=v02_bid_samples())


def solver_cards() -> int | None:
    """``VARAQ_BENCH_SOLVER_CARDS``: where today's Hard starts solving its layouts (an
    experiment's knob; unset, Hard's own default)."""
    text = os.environ.get("VARAQ_BENCH_SOLVER_CARDS", "")
    return int(text) if text else None


def table_bids() -> bool:
    """``VARAQ_BENCH_TABLE_BIDS``: today's Hard bids as at a table, not with the fixed layouts."""
    return os.environ.get("VARAQ_BENCH_TABLE_BIDS", "") == "1"


def new_hard_samples() -> int:
    """``VARAQ_BENCH_NEW_SAMPLES``: today's Hard's layouts when they differ from the others'
    (unset, ``VARAQ_BENCH_SAMPLES``).  Twice the fixed number is Expert at fixed layouts:
    Expert is today's Hard with a longer budget, about twice the layouts."""
    text = os.environ.get("VARAQ_BENCH_NEW_SAMPLES", "")
    return int(text) if text else samples()


class NewHard(HardBot):
    def __init__(self) -> None:
        super().__init__(samples=new_hard_samples(), solver_cards=solver_cards())
        self.table_bids = table_bids()

    def decide(self, view: View, rng: random.Random) -> Decision:
        if self.table_bids and view.phase == "bid":
            return hard_bid(view)
        return super().decide(view, rng)


class NormalV02(NormalBot):
    """Normal's bids, Normal 0.2's cards."""

    name = "normal-v02"

    def decide(self, view: View, rng: random.Random) -> Decision:
        if view.phase == "play" and view.legal:
            return choose_play_v02(view)
        return super().decide(view, rng)


def _rng(game: Game) -> random.Random:
    """A seed made of the position, so the same deal gives the same decisions both ways."""
    return random.Random(f"{game.hand_no}:{game.turn}:{game.played}:{game.hands[game.turn]}")


class HardBidsPerfectPlay:
    """Hard's bids, the cheater's cards."""

    name = "hard-bids-perfect-play"

    def __init__(self) -> None:
        self.hard = HardBot(samples=samples())
        self.table_bids = table_bids()
        self.cheater = CheaterBot()

    def act_full(self, game: Game) -> int:
        view = game.view(game.turn)
        if game.phase == BIDDING:
            if self.table_bids:
                return hard_bid(view).action
            return self.hard.decide(view, random.Random(bid_seed(view))).action
        return self.cheater.act_full(game)


class ParBidsHardPlay:
    """The cheater's bids (the par of the true deal), Hard's cards."""

    name = "par-bids-hard-play"

    def __init__(self) -> None:
        self.hard = HardBot(samples=samples())
        self.cheater = CheaterBot()

    def act_full(self, game: Game) -> Any:
        view = game.view(game.turn)
        if game.phase == BIDDING:
            return self.cheater.act_full(game)
        if game.phase == BLIND:
            return choose_blind(view).action
        if game.phase == EXCHANGE:
            return choose_pass(view).action
        return self.hard.decide(view, _rng(game)).action
