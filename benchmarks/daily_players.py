"""The daily's Hard players at today's layouts a card against the 20 they had; prints ONE JSON
document.

    python benchmarks/daily_players.py [--deals 300] [--jobs 1] [--seed 21] [--minutes M]

Duplicate deals of the daily's rules, from 0-0, through the arena.  Both sides bid exactly as
a daily's Hard bids (:func:`varaq.bots.advice.hard_bid`: 20 solved layouts, seeded by what the
bidder knows), so only the cards differ: side a plays them with
:data:`~varaq.daily.DAILY_SAMPLES` layouts a card, side b with the 20 of the dailies before
:data:`~varaq.daily.DAILY_SAMPLES_FROM`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from varaq.arena import ArenaConfig, run_arena
from varaq.bots import Decision
from varaq.bots.advice import hard_bid
from varaq.bots.hard import HardBot
from varaq.daily import DAILY_RULES, DAILY_SAMPLES, DAILY_SAMPLES_FROM, daily_samples
from varaq.rules import Rules
from varaq.view import View

#: The layouts a card of the dailies before the change.
EARLIER = daily_samples(DAILY_SAMPLES_FROM - timedelta(days=1))


class _DailyHard:
    """A daily's Hard player dealing ``samples`` layouts a card."""

    samples = 0

    def __init__(self) -> None:
        self.bot = HardBot(samples=self.samples)
        self.name = f"daily-hard-{self.samples}"

    def decide(self, view: View, rng: random.Random) -> Decision:
        return hard_bid(view) if view.phase == "bid" else self.bot.decide(view, rng)

    def act(self, view: View, rng: random.Random) -> int:
        return self.decide(view, rng).action


class DailyHardNow(_DailyHard):
    samples = DAILY_SAMPLES


class DailyHardBefore(_DailyHard):
    samples = EARLIER


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=21)
    p.add_argument("--minutes", type=float, default=None, help="time box: as many deals as fit")
    args = p.parse_args(argv)
    if args.deals < 1 or args.jobs < 1 or (args.minutes is not None and args.minutes <= 0):
        p.error("--deals and --jobs must be at least 1, --minutes above 0")
    config = ArenaConfig(a=DailyHardNow, b=DailyHardBefore, rules=Rules.named(DAILY_RULES),
                         seed=args.seed, deals=args.deals)
    result = run_arena(config, jobs=args.jobs, progress=False, minutes=args.minutes)
    print(json.dumps({"benchmark": "daily_players", "samples": [DAILY_SAMPLES, EARLIER],
                      **result.to_json()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
