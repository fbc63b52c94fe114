"""A plain pure-Python checker of ``varaq-record/1`` files, to measure ``varaq replay`` against.

    python benchmarks/plain_checker.py RECORD.json

Issue 17 asks that ``varaq replay`` check records at least twice as fast as a plain checker of
the same records, process start included.  This is that checker: written the way a competent
programmer would write a first one, from the rules and the record format alone, sharing no
code with Varaq (it does not import it).  Cards are their text (``"QH"``), a hand is a set of
them, and every rule a full record exercises is checked card by card:

- the rules: a preset and its overrides, the start totals and bags;
- the deal: four seats, 13 known cards each, 52 different cards;
- the dealer of each hand (the previous dealer's left);
- the bids: 0-13 or nil (when nil is played), the board (``min_team_bid``), blind nil only for a
  side trailing by enough, at most one a side; a bid list that misses a seat ends the match as
  an unfinished hand;
- the exchange after a blind nil: the partner passes first, then the blind nil bidder, each
  exactly the cards the rules say, each card held at that moment;
- the play: the player to move holds the card, follows suit when able, leads a spade only once
  spades are broken or with nothing else (and the 2C first when the rules say so), the trick
  goes to the highest spade or else the highest card of the suit led, its winner leads next,
  and a trick count given beside the plays must agree;
- score-sheet hands (tricks instead of cards): four counts adding up to 13;
- the scoring: contracts made and set, bags and the bag penalty, nil and blind nil, nil tricks
  as bags, the Boston bonus, the target and the mercy line, a concession.

It prints the scores as ``varaq replay --json`` does (the same keys and numbers; compact JSON,
which the standard library writes in C), or one line on standard error and status 2 for a
record that breaks a rule.  The jokers variant is out of scope: such a record is refused as
unsupported.  ``benchmarks/replay.py`` runs this beside ``varaq replay`` on the same record and
checks that both print the same scores.
"""

from __future__ import annotations

import json
import sys

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SEATS = "NESW"
SIDES = ("NS", "EW")

PRESETS = {
    "classic": {
        "target": 500, "nil": True, "nil_value": 100, "blind_nil": True,
        "blind_nil_value": 200, "blind_nil_trail": 100, "exchange": 2, "nil_bags_score": False,
        "two_clubs_leads": False, "jokers": False, "bag_limit": 10, "bag_penalty": 100,
        "mercy": None, "min_team_bid": 0, "boston_bonus": 0,
    },
}
PRESETS["short"] = dict(PRESETS["classic"], target=300)
PRESETS["varaq"] = dict(PRESETS["classic"], blind_nil=False, exchange=0, nil_bags_score=True)
PRESETS["daily"] = dict(
    PRESETS["classic"], target=250, blind_nil=False, exchange=0, nil_bags_score=True
)


class BadRecord(Exception):
    pass


def read_rules(spec):
    if isinstance(spec, str):
        spec = {"preset": spec}
    if not isinstance(spec, dict):
        raise BadRecord("rules must be a preset name or an object")
    preset = spec.get("preset", "classic")
    if preset not in PRESETS:
        raise BadRecord(f"unknown preset {preset!r}")
    rules = dict(PRESETS[preset])
    for key, value in spec.items():
        if key == "preset":
            continue
        if key not in rules:
            raise BadRecord(f"unknown rule {key!r}")
        rules[key] = value
    if rules["jokers"]:
        raise BadRecord("jokers are not supported by this checker")
    return rules


def parse_card(word):
    word = word.upper().replace("10", "T")
    if len(word) != 2 or word[0] not in RANKS or word[1] not in SUITS:
        raise BadRecord(f"unknown card {word!r}")
    return word


def parse_cards(text):
    if isinstance(text, list):
        return [parse_card(w) for w in text]
    return [parse_card(w) for w in text.replace(",", " ").split()]


def seat_index(letter):
    if letter not in SEATS:
        raise BadRecord(f"unknown seat {letter!r}")
    return SEATS.index(letter)


def card_power(card, led_suit):
    """Higher wins the trick: spades beat everything, then the suit led, the rest nothing."""
    rank = RANKS.index(card[0])
    if card[1] == "S":
        return 100 + rank
    if card[1] == led_suit:
        return rank
    return -1


def score_hand(rules, bids, blind, tricks, bags):
    """Points and carried bags of both sides after one hand."""
    score = [0, 0]
    new_bags = list(bags)
    for side in (0, 1):
        points = 0
        hand_bags = 0
        contract = 0
        contract_tricks = 0
        for seat in (side, side + 2):
            if bids[seat] == 0:
                value = rules["blind_nil_value"] if blind[seat] else rules["nil_value"]
                if tricks[seat] == 0:
                    points += value
                else:
                    points -= value
                hand_bags += tricks[seat]
                if rules["nil_bags_score"]:
                    points += tricks[seat]
            else:
                contract += bids[seat]
                contract_tricks += tricks[seat]
        if contract > 0:
            if contract_tricks >= contract:
                points += 10 * contract + (contract_tricks - contract)
                hand_bags += contract_tricks - contract
            else:
                points -= 10 * contract
        if tricks[side] + tricks[side + 2] == 13:
            points += rules["boston_bonus"]
        new_bags[side] += hand_bags
        if rules["bag_penalty"]:
            while new_bags[side] >= rules["bag_limit"]:
                new_bags[side] -= rules["bag_limit"]
                points -= rules["bag_penalty"]
        score[side] = points
    return score, new_bags


def match_winner(rules, totals):
    over = totals[0] >= rules["target"] or totals[1] >= rules["target"]
    if rules["mercy"] is not None and min(totals) < rules["mercy"]:
        over = True
    if not over or totals[0] == totals[1]:
        return None
    return 0 if totals[0] > totals[1] else 1


def check_bids(rules, hand, dealer, totals):
    """Each seat's bid and whether it was blind, in bidding order; None if bidding stopped."""
    raw = hand.get("bids", {})
    order = [(dealer + i) % 4 for i in range(1, 5)]
    bids = [None] * 4
    blind = [False] * 4
    for seat in order:
        letter = SEATS[seat]
        if letter not in raw:
            return None, blind
        value = raw[letter]
        partner = (seat + 2) % 4
        side = seat % 2
        if value == "blind":
            if not rules["blind_nil"]:
                raise BadRecord(f"{letter}: blind nil is not played")
            trail = totals[1 - side] - totals[side]
            if trail < rules["blind_nil_trail"]:
                raise BadRecord(f"{letter}: blind nil refused, the side trails by {trail}")
            if blind[partner]:
                raise BadRecord(f"{letter}: the partner already bid blind nil")
            blind[seat] = True
            bids[seat] = 0
            continue
        if value == "nil":
            value = 0
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 13:
            raise BadRecord(f"{letter}: bad bid {value!r}")
        if value == 0 and not rules["nil"]:
            raise BadRecord(f"{letter}: nil is not played")
        partner_bid = bids[partner]
        need = rules["min_team_bid"]
        if value > 0 and need and partner_bid and value + partner_bid < need:
            raise BadRecord(f"{letter}: the side's bid must reach {need}")
        bids[seat] = value
    if set(raw) - set(SEATS):
        raise BadRecord(f"unknown seat in bids: {sorted(set(raw) - set(SEATS))}")
    return bids, blind


def do_exchange(rules, hand, hands, dealer, blind):
    """Pass the cards after each blind nil: the partner first, then the blind nil bidder."""
    given = hand.get("exchange") or {}
    size = rules["exchange"]
    expected = []
    if size:
        for seat in [(dealer + i) % 4 for i in range(1, 5)]:
            if blind[seat]:
                expected += [(seat + 2) % 4, seat]
    if set(given) != {SEATS[s] for s in expected}:
        raise BadRecord(f"exchange: expected passes from {[SEATS[s] for s in expected]}")
    for giver in expected:
        receiver = (giver + 2) % 4
        cards = parse_cards(given[SEATS[giver]])
        if len(cards) != size or len(set(cards)) != size:
            raise BadRecord(f"exchange: {SEATS[giver]} must pass {size} different cards")
        for card in cards:
            if card not in hands[giver]:
                raise BadRecord(f"exchange: {SEATS[giver]} does not hold {card}")
        for card in cards:
            hands[giver].remove(card)
            hands[receiver].add(card)


def play_cards(rules, hand, hands, dealer):
    """Play the hand out; returns each seat's tricks, or None if the plays stop early."""
    plays = parse_cards(hand.get("plays", ""))
    if len(plays) > 52:
        raise BadRecord("more than 52 cards played")
    if rules["two_clubs_leads"]:
        leader = next(s for s in range(4) if "2C" in hands[s])
    else:
        leader = (dealer + 1) % 4
    tricks = [0, 0, 0, 0]
    broken = False
    for start in range(0, len(plays), 4):
        trick = plays[start:start + 4]
        number = start // 4 + 1
        led_suit = trick[0][1]
        for i, card in enumerate(trick):
            seat = (leader + i) % 4
            held = hands[seat]
            if card not in held:
                raise BadRecord(f"trick {number}: {SEATS[seat]} does not hold {card}")
            if i == 0:
                if number == 1 and rules["two_clubs_leads"] and card != "2C":
                    raise BadRecord("the 2C must lead the first trick")
                if card[1] == "S" and not broken and any(c[1] != "S" for c in held):
                    raise BadRecord(f"trick {number}: {SEATS[seat]} leads {card}, spades unbroken")
            elif card[1] != led_suit and any(c[1] == led_suit for c in held):
                raise BadRecord(f"trick {number}: {SEATS[seat]} must follow {led_suit}")
            held.remove(card)
            if card[1] == "S":
                broken = True
        if len(trick) < 4:
            return None
        powers = [card_power(card, led_suit) for card in trick]
        winner = (leader + powers.index(max(powers))) % 4
        tricks[winner] += 1
        leader = winner
    if len(plays) < 52:
        return None
    return tricks


def check_deal(deal):
    hands = []
    seen = set()
    for letter in SEATS:
        if letter not in deal:
            raise BadRecord(f"the deal has no hand for {letter}")
        cards = parse_cards(deal[letter])
        if len(cards) != 13 or len(set(cards)) != 13:
            raise BadRecord(f"{letter} must be dealt 13 different cards")
        if seen & set(cards):
            raise BadRecord(f"{letter}'s cards were dealt twice")
        seen |= set(cards)
        hands.append(set(cards))
    return hands


def check_record(doc):
    if not isinstance(doc, dict) or doc.get("format", "varaq-record/1") != "varaq-record/1":
        raise BadRecord("not a varaq-record/1 document")
    rules = read_rules(doc.get("rules", "classic"))
    start = doc.get("start") or {}
    totals = [start.get("total", {}).get(side, 0) for side in SIDES]
    bags = [start.get("bags", {}).get(side, 0) for side in SIDES]
    results = []
    winner = None
    dealer = None
    hands = doc.get("hands", [])
    for number, hand in enumerate(hands, 1):
        if winner is not None:
            raise BadRecord(f"hand {number}: the match was already over")
        try:
            expected = 0 if dealer is None else (dealer + 1) % 4
            if "dealer" in hand:
                named = seat_index(hand["dealer"])
                if dealer is not None and named != expected:
                    raise BadRecord(f"the dealer must be {SEATS[expected]}")
                expected = named
            dealer = expected
            deal = hand.get("deal")
            if deal is not None and len(deal) < 4 and doc.get("partial") and number == len(hands):
                break  # a player's record of a running match: the last hand is not all known
            bids, blind = check_bids(rules, hand, dealer, totals)
            if deal is None:  # a score sheet
                tricks = hand.get("tricks")
                if bids is None or tricks is None:
                    finished = None
                else:
                    finished = [tricks[s] for s in SEATS]
                    if sum(finished) != 13 or min(finished) < 0:
                        raise BadRecord("tricks must add up to 13")
            else:
                cards = check_deal(deal)
                if bids is None:
                    finished = None
                else:
                    do_exchange(rules, hand, cards, dealer, blind)
                    finished = play_cards(rules, hand, cards, dealer)
                    given = hand.get("tricks")
                    if given is not None and [given[s] for s in SEATS] != finished:
                        raise BadRecord("the tricks given disagree with the plays")
        except BadRecord as e:
            raise BadRecord(f"hand {number}: {e}") from None
        if finished is None:
            if number != len(hands):
                raise BadRecord(f"hand {number}: unfinished, but another hand follows")
            break
        score, bags = score_hand(rules, bids, blind, finished, bags)
        totals = [totals[0] + score[0], totals[1] + score[1]]
        results.append((finished, score, bags, totals))
        winner = match_winner(rules, totals)
    conceded = doc.get("conceded")
    if conceded is not None:
        if winner is not None:
            raise BadRecord("a side conceded after the match was over")
        winner = 1 - SIDES.index(conceded)
    return results, totals, bags, winner


def summary(results, totals, bags, winner):
    def sides(pair):
        return {"NS": pair[0], "EW": pair[1]}

    return {
        "hands": [
            {
                "tricks": dict(zip(SEATS, tricks, strict=True)),
                "score": sides(score),
                "bags": sides(hand_bags),
                "total": sides(total),
            }
            for tricks, score, hand_bags, total in results
        ],
        "total": sides(totals),
        "bags": sides(bags),
        "winner": None if winner is None else SIDES[winner],
        "complete": winner is not None,
    }


def main(argv):
    if len(argv) != 1:
        print("usage: plain_checker.py RECORD.json", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as f:
            doc = json.load(f)
        result = check_record(doc)
    except (OSError, ValueError, BadRecord) as e:
        print(f"bad record: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary(*result)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
