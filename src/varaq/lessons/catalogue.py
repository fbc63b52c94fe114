"""The lessons, in the order a new player takes them: the rules of play, bidding, nil, the
score, blind nil, and the joker game.

Every position is written from South's chair (the learner); North is the partner, West sits on
the learner's left and East on the right.  The facts each lesson states (which cards may be
played, who wins the trick, what the hand scores) are checked against the engine by
``tests/test_lessons.py``: change a position and the test says which sentence is no longer true.
The bidding lesson's count is not written here at all: it is the computer players' own estimate
of the hand, in the Hint's words.
"""

from __future__ import annotations

from ..bots.advice import count_lines, trick_reasons
from ..bots.bidding import estimate_tricks, top_trump
from ..cards import card_text, card_unicode, parse_hand
from .positions import Setup
from .teach import Lesson

__all__ = ["LESSONS"]

_FOLLOW = Lesson(
    id="follow-suit",
    title="Follow suit",
    text=(
        "A hand is played in thirteen tricks. In a trick each player puts down one card, in "
        "turn, going to the left.",
        "The first card of a trick is the lead. Everyone after it must play a card of the same "
        "suit if they hold one: that is following suit. Cards you may not play are dimmed; tap "
        "one to see why.",
    ),
    task="West led the K♥. Play a card.",
    setup=Setup(
        dealer="S",
        bids={"W": 3, "N": 4, "E": 2, "S": 3},
        trick="KH 4H 9H",
        hands={"S": "AH 7H 2H KS 6S 4S 9C 8C 5C QD JD 4D 3D"},
    ),
    right=("AH", "7H", "2H"),
    right_text="Right: you followed with a heart. West's K♥ stays the highest card, so West "
               "takes the trick.",
    illegal_text="You hold hearts, so you must play one: West led a heart.",
    said={"AH": "Right: you followed with a heart, and your A♥ is the highest heart, so the "
                "trick is yours."},
    legal=("AH", "7H", "2H"),
    winners={"AH": "S", "7H": "W", "2H": "W"},
)

_CUT = Lesson(
    id="cut",
    title="Cut with a spade",
    text=(
        "Spades are trumps. When you hold no card of the suit led you may play any card, and a "
        "spade beats every card of the other suits. Playing a spade on another suit is called "
        "cutting.",
        "A card of a third suit never wins: with no spade in the trick, the highest card of the "
        "suit led takes it.",
    ),
    task="West led the A♦ and you have no diamonds. Win the trick.",
    setup=Setup(
        dealer="S",
        bids={"W": 4, "N": 3, "E": 3, "S": 3},
        trick="AD 5D 9D",
        hands={"S": "JS 8S 4S AH TH 9H 6H 3H KC QC 7C 5C 2C"},
    ),
    right=("4S", "8S", "JS"),
    right_text="Right: any spade beats a diamond, so the trick is yours. The 4♠ would have won "
               "it too, keeping your higher spades for later.",
    wrong_text="That card cannot win: it is neither a diamond nor a spade, so West's A♦ takes "
               "the trick. A spade would have won it.",
    said={"4S": "Right: your lowest spade is enough, since any spade beats a diamond."},
    legal=("JS", "8S", "4S", "AH", "TH", "9H", "6H", "3H", "KC", "QC", "7C", "5C", "2C"),
    winners={"4S": "S", "8S": "S", "JS": "S", "AH": "W", "2C": "W"},
)

_BROKEN = Lesson(
    id="spades-broken",
    title="Spades wait to be broken",
    text=(
        "You may not lead a spade until spades are broken: until a spade has been played in an "
        "earlier trick, usually by someone cutting.",
        "At the start of a hand no spade has been played, so whoever leads must choose another "
        "suit.",
    ),
    task="You lead to the first trick. Choose a card.",
    setup=Setup(
        dealer="E",
        bids={"S": 4, "W": 3, "N": 3, "E": 2},
        hands={"S": "AS KS 7S 3S QH 8H 4H JC 6C 2C 9D 7D 3D"},
    ),
    right=("QH", "8H", "4H", "JC", "6C", "2C", "9D", "7D", "3D"),
    right_text="Right: any suit but spades may be led now. Your spades wait until someone "
               "breaks them.",
    illegal_text="Spades are not broken: no spade has been played yet, so you may not lead one.",
    legal=("QH", "8H", "4H", "JC", "6C", "2C", "9D", "7D", "3D"),
)

_ONLY_SPADES = Lesson(
    id="only-spades",
    title="Nothing but spades",
    text=(
        "There is one exception to the rule about leading spades: a player who holds nothing "
        "but spades may lead one, broken or not.",
        "The highest spade in a trick wins it, whatever was led.",
    ),
    task="Nine tricks have gone without a spade, and you hold only spades. Lead the spade that "
         "is sure to win this trick.",
    setup=Setup(
        dealer="E",
        bids={"S": 3, "W": 4, "N": 2, "E": 3},
        leader="S",
        taken={"N": 3, "E": 2, "S": 2, "W": 2},
        hands={"S": "AS 9S 5S 4S", "W": "KS QS JS 3S", "N": "2S AH KD QC",
               "E": "TS 8S 7S 6S"},
    ),
    right=("AS",),
    right_text="Right: you may lead a spade because you hold nothing else, and nobody can beat "
               "the A♠.",
    wrong_text="You may lead it, since you hold only spades, but it is not sure to win: West's "
               "J♠ beats it. Only the A♠ cannot be beaten.",
    legal=("AS", "9S", "5S", "4S"),
    winners={"AS": "S", "9S": "W", "5S": "W", "4S": "W"},
)

_WHO_WINS = Lesson(
    id="who-wins",
    title="Which card wins the trick",
    text=(
        "The trick goes to the highest spade in it. If nobody played a spade, it goes to the "
        "highest card of the suit that was led.",
        "So the smallest spade beats the ace of any other suit, and a card you cannot win with "
        "is best kept for later.",
    ),
    task="West led the J♣ and East, with no clubs, cut with the 2♠. Play a card.",
    setup=Setup(
        dealer="S",
        bids={"W": 3, "N": 4, "E": 3, "S": 3},
        trick="JC 4C 2S",
        hands={"S": "AC 9C 6C KH 8H 5H 2H QS 7S AD TD 6D 3D"},
    ),
    right=("9C", "6C"),
    right_text="Right: no club can beat East's 2♠, so play a low club and keep your A♣ for a "
               "trick it can win.",
    wrong_text="Legal, but wasted: East's 2♠ beats every club, even your A♣. Keep the ace for a "
               "trick it can win.",
    illegal_text="You hold clubs, so you must play one: you may cut with a spade only when you "
                 "have no club.",
    legal=("AC", "9C", "6C"),
    winners={"AC": "E", "9C": "E", "6C": "E"},
)

def _bidding(hand: str) -> Lesson:
    """The bidding lesson on ``hand``: its count, its reasons and the bids it calls right are
    worked out by the same estimate the computer players bid from and the Hint's words for it
    (:mod:`varaq.bots.advice`), never typed by hand, so the lesson cannot teach a count the
    bots do not make.

    A right bid is less than a trick over the estimate and less than two under it: the
    estimate's whole tricks, one more when it counts a doubtful card, one fewer to be safe.
    That is the span the Hard player's bids fall in on such a hand, since each of its
    simulations sees different cards in the other hands.
    """
    cards = parse_hand(hand)
    tricks = estimate_tricks(cards)
    about = f"{tricks:.1f}"
    right = [b for b in range(1, 14) if tricks - 2 < b < tricks + 1]
    bids = " or ".join(str(b) for b in right if b >= int(tricks))
    safe = [str(b) for b in right if b < int(tricks)]
    if safe:
        bids += f", or {' or '.join(safe)} to be safe"
    lines = count_lines(cards, jokers=False)
    if any(line.card is None for line in lines):
        raise ValueError("the bidding lesson needs a hand with spades: each line shows a card")
    said: dict[str, str] = {}
    if right[0] > 1:
        said[f"bid {right[0] - 1}"] = (f"Safe, but the count says about {about}: a bid that "
                                       "low gives away tricks that come back as bags.")
    if right[-1] < 13:
        said[f"bid {right[-1] + 1}"] = (f"Bold: {right[-1] + 1} needs every doubtful card to "
                                        f"win. The count says about {about}.")
    top = top_trump(False)
    if cards >> top & 1:
        said["nil"] = (f"Nil suits a hand with no high cards; with the {card_unicode(top)} you "
                       "are sure to take a trick.")
    return Lesson(
        id="bidding",
        title="Count your tricks and bid",
        text=(
            "Before the play each player bids how many tricks they expect to take. Partners add "
            "their bids into one contract and must take at least that many between them.",
            "Count the cards that should win: aces, a king with low cards of its suit to wait "
            "behind, high spades. Spades beyond your third often win late in the hand.",
        ),
        task="You bid first. How many tricks will this hand take?",
        setup=Setup(dealer="E", hands={"S": hand}),
        right=tuple(f"bid {b}" for b in right),
        right_text="Right: a sound bid for this hand.",
        wrong_text=f"That is far from what this hand can take: about {about} tricks.",
        illegal_text="First the bid: cards are played once everyone has bid.",
        said=said,
        estimate=f"About {about} tricks: {trick_reasons(cards, jokers=False)}. Bid {bids}.",
        # Tenths, as the estimate is said: the lines then add up to it as a reader adds them.
        count=tuple((card_text(line.card), round(line.tricks, 1), line.words)
                    for line in lines if line.card is not None),
    )


_BIDDING = _bidding("AS KS 8S 3S AH 9H 5H KD 7D 2D QC 6C 4C")

_NIL = Lesson(
    id="nil",
    title="Bidding nil",
    text=(
        "A bid of nil promises to take no trick at all. Made, it earns your side 100 points; a "
        "single trick breaks it and costs 100. Your partner's bid is then your side's whole "
        "contract.",
        "To keep a nil, stay under the highest card in each trick, and get rid of your high "
        "cards while someone else's card is higher.",
    ),
    task="You bid nil. East has played the Q♥. Play a card.",
    setup=Setup(
        dealer="S",
        bids={"W": 3, "N": 4, "E": 3, "S": "nil"},
        trick="TH 3H QH",
        hands={"S": "KH JH 4H 9S 6S 2S QD 8D 5D 2D 7C 5C 3C"},
    ),
    right=("JH", "4H"),
    right_text="Right: you stay under the Q♥, so East takes the trick.",
    wrong_text="Your K♥ beats the Q♥: you win the trick, and your nil is broken.",
    illegal_text="You hold hearts, so you must play one.",
    said={"JH": "Right, and well chosen: the J♥ stays under the Q♥, and a high heart is best "
                "thrown away while it cannot win."},
    legal=("KH", "JH", "4H"),
    winners={"KH": "S", "JH": "E", "4H": "E"},
)

_COVER = Lesson(
    id="cover-nil",
    title="Covering partner's nil",
    text=(
        "When your partner bids nil, your task changes: take the tricks your partner might be "
        "forced to win.",
        "If partner has had to play a high card, beat it if you can, so the trick is yours and "
        "not partner's.",
    ),
    task="Partner bid nil and had to play the Q♦. Save the nil.",
    setup=Setup(
        dealer="S",
        bids={"W": 3, "N": "nil", "E": 4, "S": 5},
        trick="5D QD 9D",
        hands={"S": "AD KD 3D AS QS JS 7S AH 6H 4H KC 8C 3C"},
    ),
    right=("AD", "KD"),
    right_text="Right: your card beats the Q♦, so you win the trick and partner's nil is safe.",
    wrong_text="Partner's Q♦ stays the highest diamond, so partner wins the trick and the nil "
               "is broken.",
    illegal_text="You hold diamonds, so you must play one.",
    said={"KD": "Right: the K♦ is enough to beat the Q♦, and you keep your A♦."},
    legal=("AD", "KD", "3D"),
    winners={"AD": "S", "KD": "S", "3D": "N"},
)

_SET_NIL = Lesson(
    id="set-nil",
    title="Setting their nil",
    text=(
        "When an opponent bids nil, your side wins 100 points if that player takes a trick. "
        "Leave the nil bidder's cards on top whenever you can.",
        "Play under a nil bidder's card rather than over it. Lead cards they may have to beat: "
        "the fewer lower cards of that suit still out, the better, and not a suit their "
        "partner can trump. When they play after you, stay under the card on top. Open a new "
        "suit with a card other than your smallest: on the first round their partner covers "
        "anyway, and your smallest is worth more later.",
    ),
    task="East bid nil and has played the 10♣. Play a card.",
    setup=Setup(
        dealer="S",
        bids={"W": 4, "N": 4, "E": "nil", "S": 3},
        trick="3C 2C TC",
        hands={"S": "QC 8C 5C AS 9S 4S KH 7H 3H JD 9D 6D 2D"},
    ),
    right=("8C", "5C"),
    right_text="Right: East's 10♣ stays on top, so East takes the trick and the nil is broken.",
    wrong_text="Your Q♣ takes the trick away from East, and the nil survives.",
    illegal_text="You hold clubs, so you must play one.",
    legal=("QC", "8C", "5C"),
    winners={"QC": "S", "8C": "E", "5C": "E"},
)

_SCORING = Lesson(
    id="scoring",
    title="Scoring a hand",
    text=(
        "A side that takes at least its contract scores 10 points for every trick it bid, plus "
        "1 point for each extra trick. A side that falls short is set: it loses 10 points for "
        "every trick it bid.",
        "A nil is scored apart: 100 points won or lost. Watch the score bar after the last "
        "card.",
    ),
    task="Your side bid 7 and has taken 6 tricks. Two tricks are left: win the one you need.",
    setup=Setup(
        dealer="E",
        bids={"S": 3, "W": 3, "N": 4, "E": 3},
        leader="W",
        trick="5C 2C 9C",
        taken={"N": 4, "S": 2, "E": 3, "W": 2},
        hands={"S": "KC 3C", "W": "7D", "N": "8H", "E": "AS"},
        totals={"NS": 210, "EW": 180},
    ),
    right=("KC",),
    right_text="Right: 7 tricks for the 7 you bid, +70. East's A♠ takes the last trick, and "
               "East-West make their 6 for +60.",
    wrong_text="East's 9♣ takes this trick and the A♠ the last: 6 tricks of the 7 you bid, so "
               "your side is set, −70.",
    illegal_text="You hold clubs, so you must play one.",
    play_out=True,
    legal=("KC", "3C"),
    winners={"KC": "S", "3C": "E"},
    after={
        "KC": {"score": {"NS": 70, "EW": 60}, "totals": {"NS": 280, "EW": 240}},
        "3C": {"score": {"NS": -70, "EW": 61}, "totals": {"NS": 140, "EW": 241}},
    },
)

_BAGS = Lesson(
    id="bags",
    title="Bags and the penalty",
    text=(
        "Each trick your side takes beyond its contract is a bag: it scores 1 point, but bags "
        "add up from hand to hand. When a side's count reaches 10 it loses 100 points, and the "
        "count drops by 10.",
        "So once your contract is made, an extra trick can cost far more than it earns. The "
        "score bar shows each side's bags.",
    ),
    task="Your side bid 6, has taken 6, and carries 9 bags. Two tricks are left. Play a card.",
    setup=Setup(
        dealer="E",
        bids={"S": 3, "W": 2, "N": 3, "E": 2},
        leader="W",
        trick="9D 4D 2D",
        taken={"N": 3, "S": 3, "E": 3, "W": 2},
        hands={"S": "JD 3D", "W": "AH", "N": "7H", "E": "8H"},
        totals={"NS": 230, "EW": 190},
        bags={"NS": 9, "EW": 2},
    ),
    right=("3D",),
    right_text="Right: West takes both last tricks. Your side makes its 6 exactly, +60, and "
               "still carries 9 bags.",
    wrong_text="Your J♦ wins, and then your 3♦ wins the last trick as well: 2 bags make 11, "
               "the penalty comes, and the hand scores −38 instead of +60.",
    illegal_text="You hold diamonds, so you must play one.",
    play_out=True,
    legal=("JD", "3D"),
    winners={"3D": "W", "JD": "S"},
    after={
        "3D": {"score": {"NS": 60}, "bags": {"NS": 9}, "totals": {"NS": 290}},
        "JD": {"score": {"NS": -38}, "bags": {"NS": 1}, "totals": {"NS": 192}},
    },
)

_WINNING = Lesson(
    id="winning",
    title="Winning the match",
    text=(
        "The match ends after the hand in which a side reaches the target, 500 points here. The "
        "higher total wins.",
        "If both sides finish level, another hand is played: there are no draws.",
    ),
    task="You have 440 and they have 448. Your side bid 6 and has 6; two tricks are left. "
         "Play the card that wins the match.",
    setup=Setup(
        dealer="E",
        bids={"S": 3, "W": 3, "N": 3, "E": 2},
        leader="W",
        trick="6H 2H TH",
        taken={"N": 3, "S": 3, "E": 3, "W": 2},
        hands={"S": "QH 4H", "W": "7D", "N": "8C", "E": "AS"},
        totals={"NS": 440, "EW": 448},
    ),
    right=("QH",),
    right_text="Right: 7 tricks on your 6 is +61, and East-West make +51: 501 to 499, and the "
               "match is yours.",
    wrong_text="East takes this trick: your side scores +60 and theirs +52, 500 each. Level "
               "totals mean another hand.",
    illegal_text="You hold hearts, so you must play one.",
    play_out=True,
    legal=("QH", "4H"),
    winners={"QH": "S", "4H": "E"},
    after={
        "QH": {"score": {"NS": 61, "EW": 51}, "totals": {"NS": 501, "EW": 499}, "match": "NS"},
        "4H": {"score": {"NS": 60, "EW": 52}, "totals": {"NS": 500, "EW": 500}, "match": None},
    },
)

_BLIND = Lesson(
    id="blind-nil",
    title="Blind nil",
    text=(
        "A side that is 100 points or more behind may bid blind nil: nil, bid before looking at "
        "the cards. It counts double: 200 points won, or lost if the bidder takes a trick.",
        "You choose with your cards face down. Looking gives up blind nil for this hand, though "
        "an ordinary nil is still allowed.",
    ),
    task="Your side trails 160 to 380, with 500 to win. Bid blind nil, or look at your cards?",
    setup=Setup(
        dealer="E",
        hands={"S": "KS 7S 3S QH 9H 5H 2H JC 8C 4C TD 6D 3D"},
        totals={"NS": 160, "EW": 380},
    ),
    right=("blind nil",),
    right_text="Right: 220 behind, the 200 points of a blind nil are worth the gamble. Your "
               "cards are turned up now that you have bid.",
    wrong_text="Looking is allowed, but blind nil is gone for this hand. This far behind, its "
               "200 points are worth the risk.",
    illegal_text="Choose first: blind nil, or look at your cards.",
    legal=("blind nil", "look"),
)

_EXCHANGE = Lesson(
    id="exchange",
    title="The blind nil exchange",
    text=(
        "After a blind nil the partners swap cards: the partner passes two cards to the blind "
        "nil bidder, who then passes two back.",
        "The bidder keeps the low cards and passes back the ones most likely to win a trick. An "
        "ace wins whenever it is played, unless it is cut.",
    ),
    task="You bid blind nil, and partner passed you the 2♣ and 3♦. Pass back two cards.",
    setup=Setup(
        dealer="E",
        bids={"S": "blind", "W": 4, "N": 5, "E": 3},
        exchange={"N": "2C 3D"},
        hands={"S": "AS QS 9S 5S KH 8H 4H AC 9C 6C JD 7D 5D",
               "N": "KS JS 7S AH QH 6H KC QC 2C AD KD 4D 3D"},
        totals={"NS": 160, "EW": 380},
    ),
    right=("AS", "AC"),
    moves=2,
    right_text="Right: an ace is the card most sure to win a trick. Partner will use it.",
    wrong_text="Keep that one for now: pass back your aces first, the cards surest to win a "
               "trick.",
    said={
        "QS": "Dangerous too, but the Q♠ can hide under higher spades. The aces cannot: pass "
              "those first.",
        "KH": "Dangerous too, but the K♥ can fall under the A♥. The aces cannot: pass those "
              "first.",
    },
)

_JOKERS = Lesson(
    id="jokers",
    title="Big Joker, Little Joker",
    text=(
        "Some tables add two jokers in place of the 2♣ and the 2♥. The jokers are spades, and "
        "the highest ones.",
        "From the top the trumps run: Big Joker, Little Joker, the 2♠, then the A♠, K♠ and on "
        "down to the 3♠.",
    ),
    task="West led the A♦ and East, out of diamonds, cut with the 2♠. You have no diamonds "
         "either. Win the trick.",
    setup=Setup(
        rules={"preset": "classic", "jokers": True},
        dealer="S",
        bids={"W": 3, "N": 4, "E": 3, "S": 3},
        trick="AD 3D 2S",
        hands={"S": "LJ AS 4S KH JH 8H 7H 3H QC 9C 6C 5C 3C"},
    ),
    right=("LJ",),
    right_text="Right: the Little Joker is above the 2♠, so the trick is yours.",
    wrong_text="That does not beat the 2♠, which is above the A♠ in this game: only a joker is "
               "higher.",
    legal=("LJ", "AS", "4S", "KH", "JH", "8H", "7H", "3H", "QC", "9C", "6C", "5C", "3C"),
    winners={"LJ": "S", "AS": "E", "4S": "E", "KH": "E"},
)


# -- strategy: the guide's and the tutorial's points, each a position verified double dummy ----
# (``tests/test_lessons.py`` checks that the cards called right are exactly the solver's best
# cards here, or for the bags lesson the best final score, so no lesson can teach a worse play.)

_LEAD_ACES = Lesson(
    id="lead-aces",
    title="Cash your aces early",
    text=(
        "An ace wins its trick only while every opponent still has a card of its suit. Each "
        "trick you wait is a chance for one of them to throw that suit away, and then a spade "
        "cuts your ace.",
        "So when you are on lead, take your aces before the other suits run out.",
    ),
    task="Three tricks are left and you are on lead. Play a card.",
    setup=Setup(
        dealer="E",
        bids={"S": 3, "W": 3, "N": 4, "E": 3},
        leader="S",
        taken={"N": 3, "S": 2, "E": 3, "W": 2},
        hands={"S": "AD 6C 5C", "W": "KC 9D 8H", "N": "QC 4H 3H", "E": "7D 4S TH"},
    ),
    right=("AD",),
    right_text="Right: East still had to follow with a diamond, so your A♦ wins. A trick later "
               "East could have thrown that diamond away and cut it.",
    wrong_text="West takes the club with the K♣, and East, out of clubs, throws away the 7♦, "
               "East's only diamond. Now East's spade is waiting for your A♦.",
    legal=("AD", "6C", "5C"),
    winners={"AD": "S", "6C": "W", "5C": "W"},
)

_MAKE_VOID = Lesson(
    id="make-void",
    title="Make a void, then cut",
    text=(
        "A suit you no longer hold is a void. When that suit is led you may cut it with a "
        "spade, so a short suit is worth emptying early.",
        "When you cannot follow and partner's card already wins, throw away the last card of "
        "your shortest suit, and keep your spades and your winners.",
    ),
    task="West led the 8♣ and partner's 9♣ is winning. You have no clubs. Play a card.",
    setup=Setup(
        dealer="E",
        bids={"S": 3, "W": 3, "N": 4, "E": 3},
        leader="W",
        trick="8C 9C 5C",
        taken={"N": 3, "S": 2, "E": 2, "W": 2},
        hands={"S": "3D AH 5S 4S", "W": "KD TD KH", "N": "JD 6D QS", "E": "TC 9H JS"},
    ),
    right=("3D",),
    right_text="Right: partner keeps the trick, and with no diamonds left you can cut West's K♦ "
               "and 10♦ when they come. Your side takes every trick that is left.",
    wrong_text="That costs a trick. Keeping the 3♦ means following when West leads diamonds, "
               "and West's K♦ wins.",
    said={
        "AH": "Your A♥ is a winner; thrown away, it is gone, and the 3♦ still has to follow "
              "under West's diamonds: your side takes a trick fewer.",
        "4S": "Partner's 9♣ already wins: cutting it spends a spade for a trick your side "
              "had, and the 3♦ still has to follow under West's diamonds.",
        "5S": "Partner's 9♣ already wins: cutting it spends a spade for a trick your side "
              "had, and the 3♦ still has to follow under West's diamonds.",
    },
    legal=("3D", "AH", "5S", "4S"),
    winners={"3D": "N", "AH": "N", "4S": "S", "5S": "S"},
)

_LEAD_THROUGH = Lesson(
    id="lead-through",
    title="Lead through strength",
    text=(
        "When an opponent holds a high card, lead that suit so that opponent plays before your "
        "partner: you lead through the strength, and partner plays last to it.",
        "Partner then sees the opponent's card before choosing: a higher card to beat it, or a "
        "lower one when the opponent plays low.",
    ),
    task="Partner holds the A♥ and Q♥; West, on your left, holds the K♥. You lead. Play a card.",
    setup=Setup(
        dealer="E",
        bids={"S": 3, "W": 3, "N": 4, "E": 3},
        leader="S",
        taken={"N": 3, "S": 2, "E": 3, "W": 2},
        hands={"S": "2D 8H 5H", "W": "TD KH 3H", "N": "JD AH QH", "E": "3D TH 6H"},
    ),
    right=("8H", "5H"),
    right_text="Right: West must play before partner. The K♥ falls to the A♥, and the Q♥ is "
               "now the highest heart: your side takes every trick left.",
    wrong_text="Partner wins this one, but then has to lead hearts away from the A♥ Q♥, and "
               "West's K♥ waits behind them for a trick.",
    legal=("2D", "8H", "5H"),
    winners={"8H": "N", "5H": "N", "2D": "N"},
)

_KEEP_COVER = Lesson(
    id="keep-cover",
    title="Keep a high spade for partner's nil",
    text=(
        "When partner bids nil, your high spades are partner's guard: if partner is forced to "
        "play a high spade, you beat it and the trick is yours.",
        "So do not spend your top spade on a trick you can take, or leave, some other way.",
    ),
    task="Partner bid nil and still holds the K♠. West led the K♦; you have no diamonds. Play "
         "a card.",
    setup=Setup(
        dealer="E",
        bids={"S": 5, "W": 4, "N": "nil", "E": 3},
        leader="W",
        trick="KD 4D 6D",
        taken={"N": 0, "S": 4, "E": 3, "W": 2},
        hands={"S": "4H AS 6S 4S", "W": "QS JS 5C", "N": "2C 3D KS", "E": "7C QD 8S"},
    ),
    right=("4H", "6S", "4S"),
    right_text="Right: your A♠ stays in your hand. When spades are led and partner has to "
               "play the K♠, your ace beats it and the nil is safe.",
    wrong_text="You win this trick, but your A♠ is gone: when spades are led, partner's K♠ "
               "is the highest one left and must win a trick. The nil is broken.",
    legal=("4H", "AS", "6S", "4S"),
    winners={"4H": "W", "AS": "S", "6S": "S", "4S": "S"},
)

_COUNT_BAGS = Lesson(
    id="count-bags",
    title="Count your bags",
    text=(
        "Near ten bags, count before each trick: how many more can your side take before the "
        "penalty? Under that number a bag costs only a point.",
        "So a trick that sets the other side's contract is worth taking while you have room "
        "for its bag; at the limit, the penalty would cost more.",
    ),
    task="Your side bid 8, has 8, and carries 8 bags. East-West bid 5 and have 3. Two tricks "
         "are left. Play a card.",
    setup=Setup(
        dealer="E",
        bids={"S": 4, "W": 3, "N": 4, "E": 2},
        leader="W",
        trick="QD 3D 5D",
        taken={"N": 4, "S": 4, "E": 1, "W": 2},
        hands={"S": "KD 4D", "W": "7H", "N": "8C", "E": "AS"},
        totals={"NS": 310, "EW": 280},
        bags={"NS": 8, "EW": 1},
    ),
    right=("KD",),
    right_text="Right: one bag makes 9, still under the limit, +81. East-West can now take at "
               "most 4 of their 5: they are set, −50.",
    wrong_text="You ducked a bag you had room for: West's Q♦ wins, East's A♠ takes the last "
               "trick, and East-West make their 5, +50 to them and +80 to you.",
    illegal_text="You hold diamonds, so you must play one.",
    play_out=True,
    legal=("KD", "4D"),
    winners={"KD": "S", "4D": "W"},
    after={
        "KD": {"score": {"NS": 81, "EW": -50}, "bags": {"NS": 9}, "totals": {"NS": 391, "EW": 230}},
        "4D": {"score": {"NS": 80, "EW": 50}, "bags": {"NS": 8}, "totals": {"NS": 390, "EW": 330}},
    },
)

#: The lessons in the order they are taken.
LESSONS: tuple[Lesson, ...] = (
    _FOLLOW, _CUT, _BROKEN, _ONLY_SPADES, _WHO_WINS, _BIDDING, _NIL, _COVER, _SET_NIL,
    _SCORING, _BAGS, _WINNING, _BLIND, _EXCHANGE, _JOKERS,
    _LEAD_ACES, _MAKE_VOID, _LEAD_THROUGH, _KEEP_COVER, _COUNT_BAGS,
)
