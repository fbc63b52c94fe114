"""Placeholder replaced by the bots work (issue 3): for now Easy plays like RandomBot."""

from __future__ import annotations

from .random_bot import RandomBot


class EasyBot(RandomBot):
    name = "easy"
