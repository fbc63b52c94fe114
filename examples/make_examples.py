"""Write the example records that are played card by card.

Run ``python examples/make_examples.py`` from the project root.  Each record comes from a seeded
game played through the engine by a simple legal policy and saved with ``to_record``, so the
files are reproducible and every card in them has passed the rules.  The score-sheet examples
(``rules-*.json``) are written by hand from docs/rules.md and are not touched here.  Every record
is also copied into ``src/varaq/examples/`` so an installed package carries them.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Collection
from pathlib import Path
from typing import Any

from varaq import BID, BLIND_NIL, LOOK, Game, Rules
from varaq.cards import RANK_OF, SPADES, SUIT_MASKS, SUIT_OF, cards_of, trump_order
from varaq.engine import BIDDING, BLIND, EXCHANGE, PLAY
from varaq.record import load_record, to_record

HERE = Path(__file__).resolve().parent
PACKAGE_COPY = HERE.parent / "src" / "varaq" / "examples"


def estimate_bid(hand: int) -> int:
    """A rough bid: aces, kings with company, and spades beyond three."""
    tricks = 0.0
    for card in cards_of(hand):
        rank = RANK_OF[card]
        if rank >= 12:
            tricks += 1
        elif rank == 11 and (hand & SUIT_MASKS[SUIT_OF[card]]).bit_count() >= 2:
            tricks += 0.6
    tricks += max(0, (hand & SUIT_MASKS[SPADES]).bit_count() - 3)
    return max(1, min(13, round(tricks)))


def power(card: int, led: int, jokers: bool) -> int:
    trump = trump_order(jokers)[card]
    if trump:
        return 100 + trump
    return 1 + RANK_OF[card] if SUIT_OF[card] == led else 0


def ducking_card(game: Game) -> int:
    """The card least likely to win the trick: for a nil bidder."""
    legal = game.legal_actions()
    jokers = game.rules.jokers
    if not game.trick:
        return min(legal, key=lambda c: (SUIT_OF[c] == SPADES, RANK_OF[c]))
    led = SUIT_OF[game.trick[0]]
    best = max(power(c, led, jokers) for c in game.trick)
    losers = [c for c in legal if power(c, led, jokers) < best]
    if losers:
        return max(losers, key=lambda c: power(c, led, jokers))
    return min(legal, key=lambda c: power(c, led, jokers))


def play_out(game: Game, rng: random.Random, duck: Collection[int] = (),
             bids: dict[int, int | str] | None = None) -> None:
    """Finish the current hand: fixed bids where given, otherwise estimates; random plays
    except for the seats in ``duck``, which try to lose every trick."""
    bids = bids or {}
    hand_no = game.hand_no
    while game.hand_no == hand_no and not game.is_over:
        seat = game.turn
        if game.phase == BLIND:
            game.apply(BLIND_NIL if bids.get(seat) == "blind" else LOOK)
        elif game.phase == BIDDING:
            wanted = bids.get(seat, estimate_bid(game.hands[seat]))
            legal = game.legal_actions()
            action = BID + (0 if wanted == "nil" else int(wanted))
            game.apply(action if action in legal else legal[-1 if action > legal[-1] else 0])
        elif game.phase == EXCHANGE:
            # The nil bidder gives away its highest cards; its partner gives its lowest.
            legal = game.legal_actions()
            highest = seat in duck
            game.apply(max(legal, key=lambda c: (RANK_OF[c], c)) if highest
                       else min(legal, key=lambda c: (RANK_OF[c], c)))
        elif game.phase == PLAY:
            game.apply(ducking_card(game) if seat in duck else rng.choice(game.legal_actions()))


def full_match(seed: int) -> dict[str, Any]:
    game = Game("classic", seed=seed, dealer=0)
    rng = random.Random(seed)
    while not game.is_over:
        game.deal()
        play_out(game, rng)
    return to_record(game)


def one_hand(rules: Rules, seed: int) -> dict[str, Any]:
    game = Game(rules, seed=seed, dealer=3)
    game.deal()
    play_out(game, random.Random(seed))
    return to_record(game)


def blind_nil_hand() -> dict[str, Any]:
    """The blind nil example of docs/rules.md played with cards: NS trails 180 to 320, N bids
    blind nil and takes nothing, S bids 5 and takes 6: +251.  Seeds are tried until the cards
    do exactly that."""
    for seed in range(10_000):
        game = Game("classic", seed=seed, totals=(180, 320), dealer=3)
        game.deal()
        play_out(game, random.Random(seed), duck={0}, bids={0: "blind", 2: 5, 1: 3, 3: 3})
        taken = game.log[-1].result.tricks
        if taken[0] == 0 and taken[2] == 6:
            return to_record(game)
    raise RuntimeError("no seed gives the blind nil example")


def blind_nil_pass_back() -> dict[str, Any]:
    """A blind nil whose bidder passes back a card its partner has just given it: NS trails 180
    to 320, N bids blind nil, S passes its two lowest cards and N passes the higher of them
    straight back with its own highest card.  Seeds are tried until N's nil is broken before S
    plays the card that went there and back, late in the hand, so that an analysis of the last
    tricks (``varaq analyse``) has to know where that card really was."""
    for seed in range(10_000):
        game = Game("classic", seed=seed, totals=(180, 320), dealer=3)
        game.deal()
        game.apply(BLIND_NIL)  # N chooses first after W deals
        for bid in (3, 5, 3):  # E, S, W
            game.apply(BID + bid)
        given = sorted(game.legal_actions(), key=lambda c: (RANK_OF[c], c))[:2]
        for card in given:
            game.apply(card)  # S passes first
        back = max(given, key=lambda c: (RANK_OF[c], c))
        own = max((c for c in game.legal_actions() if c not in given),
                  key=lambda c: (RANK_OF[c], c))
        game.apply(back)
        game.apply(own)
        play_out(game, random.Random(seed), duck={0})
        log = game.log[-1]
        plays = list(log.plays)
        returned = plays.index(back)
        first_trick_of_n = _first_trick_taken_by(game, 0)
        if returned >= 36 and first_trick_of_n is not None and first_trick_of_n < returned // 4:
            return to_record(game)
    raise RuntimeError("no seed gives the blind nil pass-back example")


def _first_trick_taken_by(game: Game, seat: int) -> int | None:
    """The first trick (from 0) of the hand just played that ``seat`` won, if any."""
    return next((t for t, trick in enumerate(game.tricks) if trick.winner == seat), None)


def main() -> None:
    records = {
        "classic-match.json": full_match(2026),
        "blind-nil-exchange.json": blind_nil_hand(),
        "blind-nil-pass-back.json": blind_nil_pass_back(),
        "jokers-hand.json": one_hand(Rules.named("varaq").with_options(jokers=True), 11),
        "two-clubs-leads-hand.json": one_hand(
            Rules.named("classic").with_options(two_clubs_leads=True), 12
        ),
    }
    PACKAGE_COPY.mkdir(exist_ok=True)
    for name, doc in records.items():
        load_record(doc)  # every card has passed the rules once more
        (HERE / name).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    for path in sorted(HERE.glob("*.json")):
        shutil.copy(path, PACKAGE_COPY / path.name)
        print(path.name)


if __name__ == "__main__":
    main()
