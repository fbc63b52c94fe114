"""A uniformly random legal player: the floor of the arena and a fuzzer for the engine."""

from __future__ import annotations

import random

from ..view import View
from . import Decision


class RandomBot:
    name = "random"

    def decide(self, view: View, rng: random.Random) -> Decision:
        return Decision(rng.choice(view.legal), "a random legal action")

    def act(self, view: View, rng: random.Random) -> int:
        return rng.choice(view.legal)
