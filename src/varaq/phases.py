"""The phases of a hand, as one type shared by the engine, the views, the bots and the service.

A match goes ``deal`` (waiting for cards) → ``blind`` (eligible players choose blind nil or look,
before seeing their cards) → ``bid`` → ``exchange`` (after a blind nil, when the rules pass
cards) → ``play`` → back to ``deal``, until ``over``.

The engine compares phases on its hot path, so a phase is an ``IntEnum``: as cheap as an int, and
it still prints its name.  Views and JSON carry the phase's word (``Phase.PLAY.word == "play"``).
Keeping the type in its own module means ``engine`` and ``view`` both import it instead of each
other.

>>> Phase.BID.word, Phase.from_word("play") is Phase.PLAY
('bid', True)
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Phase", "PHASE_NAMES", "DEAL", "BLIND", "BIDDING", "EXCHANGE", "PLAY", "OVER"]


class Phase(IntEnum):
    DEAL = 0
    BLIND = 1
    BID = 2
    EXCHANGE = 3
    PLAY = 4
    OVER = 5

    @property
    def word(self) -> str:
        """The phase as views, records and the browser name it."""
        return PHASE_NAMES[self]

    @classmethod
    def from_word(cls, word: str) -> Phase:
        try:
            return cls(PHASE_NAMES.index(word))
        except ValueError:
            raise ValueError(f"unknown phase {word!r}") from None


PHASE_NAMES = ("deal", "blind", "bid", "exchange", "play", "over")
DEAL, BLIND, BIDDING, EXCHANGE, PLAY, OVER = (
    Phase.DEAL, Phase.BLIND, Phase.BID, Phase.EXCHANGE, Phase.PLAY, Phase.OVER,
)
