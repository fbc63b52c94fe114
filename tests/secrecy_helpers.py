"""What a reader may know at a table, for the secrecy tests: the cards a message names and the
cards its reader may see, worked out from the server's own game rather than from any view."""

from __future__ import annotations

import json
import re
from typing import Any

from varaq.cards import card_text, cards_of
from varaq.engine import Game

__all__ = ["CARD", "EVERY_CARD", "ID_KEYS", "cards_named", "allowed_for"]

CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|10[CDHS]|BJ|LJ)\b")
#: Every card's text (a finished match's record is whole: every card is anyone's to see).
EVERY_CARD = {card_text(c) for c in range(54)}
#: Keys whose text values are ids, not words: a random id may hold "-KS-" by chance.
ID_KEYS = ("id", "next", "table", "code")


def cards_named(doc: Any) -> set[str]:
    return set(CARD.findall(json.dumps(_without_ids(doc))))


def _without_ids(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: _without_ids(v) for k, v in doc.items()
                if not (k in ID_KEYS and isinstance(v, str))}
    if isinstance(doc, list):
        return [_without_ids(v) for v in doc]
    return doc


def allowed_for(game: Game | None, seat: int | None) -> set[str]:
    """The cards ``seat`` (``None``: a watcher) may know at this moment of ``game``, the
    server's own copy, worked out from the game itself rather than from any view: its own
    cards (unless it is still choosing blind nil), cards played face up, every card of a
    finished hand, and the cards passed to it or by it in a blind nil exchange."""
    if game is None:
        return set()
    if game.is_over:
        return EVERY_CARD
    known = game.played
    for log in game.log:  # finished hands: every card was played face up
        if log.dealt is not None:
            for hand in log.dealt:
                known |= hand
    if seat is not None and not game.view(seat).cards_hidden:
        known |= game.dealt[seat] | game.hands[seat]
        known |= game.exchanged[seat] | game.exchanged[seat ^ 2]  # gave, and was given
        if game.phase_name == "exchange" and game.exchange_queue[:1] and \
                game.exchange_queue[0][0] == seat:
            known |= game.passing  # the cards it is choosing to pass
    return {card_text(c) for c in cards_of(known)}
