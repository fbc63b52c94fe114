"""Computer players.

A bot is a pure function of a seat's :class:`~varaq.view.View`, a seeded
:class:`random.Random` and a time budget: it is never handed the game, so it cannot see a card
it should not.  The same view and seed give the same decision.

Every bot answers every decision of every preset: blind nil or look, bid, exchange and play.
``decide`` returns the action and a sentence a person can read (the web table's Hint button
shows it).

>>> from varaq import Game
>>> g = Game("classic", seed=3); _ = g.deal()
>>> bot = make_bot("easy")
>>> bot.act(g.view(g.turn), random.Random(1)) in g.legal_actions()
True
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..view import View

__all__ = ["Bot", "Decision", "make_bot", "BOT_NAMES", "LEVELS"]


@dataclass(frozen=True, slots=True)
class Decision:
    """An action and the reason for it, in a sentence."""

    action: int
    reason: str


@runtime_checkable
class Bot(Protocol):
    """What every computer player offers."""

    name: str

    def decide(self, view: View, rng: random.Random) -> Decision:
        """Choose one of ``view.legal`` and say why."""
        ...

    def act(self, view: View, rng: random.Random) -> int:
        """Choose one of ``view.legal``."""
        ...


#: The strengths offered to players.
LEVELS = ("easy", "normal", "hard", "expert")
#: name -> "module:Class"; the cheater is for the arena's ceiling only, never offered to players.
_REGISTRY = {
    "random": "varaq.bots.random_bot:RandomBot",
    "easy": "varaq.bots.easy:EasyBot",
    "normal": "varaq.bots.normal:NormalBot",
    "hard": "varaq.bots.hard:HardBot",
    "expert": "varaq.bots.hard:ExpertBot",
}
BOT_NAMES = tuple(_REGISTRY)


def make_bot(name: str, **options: object) -> Bot:
    """A bot by name (``easy``, ``normal``, ``hard``, ``expert``, ``random``) with its
    options."""
    try:
        target = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (choose from {', '.join(_REGISTRY)})") from None
    module, cls = target.split(":")
    bot: Bot = getattr(importlib.import_module(module), cls)(**options)
    return bot
