/*
 * varaq._fastsolver: the compiled core of the double-dummy solver (see varaq/solver.py).
 *
 * The Python solver stays the reference: this file searches the same game faster, and the tests
 * hold the two (and the bridge solver DDS) to the same answers.  The Python side owns the rules
 * at the root (the 2C opening lead, the choice of cards to list); this core owns the search.
 *
 * A position is four hands of four suits; each suit is a mask of rank bits, higher bit =
 * stronger card.  Clubs, diamonds and hearts use bits 0-12 (two to ace).  Spades, always trumps,
 * use bits 0-12 in the classic deck and bits 0-14 in the Big Joker Little Joker deck, where the
 * trump order is 3S..AS, 2S, LJ, BJ.
 *
 * How the search is fast (the ideas of Bo Haglund's DDS, written anew for Spades):
 *
 * - Null-window search: "can the maximising side take at least `need` of the remaining
 *   tricks?".  A yes or no prunes far more than a window of values; the exact count is a few
 *   such questions, asked one step at a time from a first guess (the side's share of the top
 *   cards).
 * - Sure trumps for each side and "the side on lead loses this trick" at the start of each
 *   trick bound the answer before any card is tried; so does, for the second and the third
 *   hand, "my side surely wins this trick" when that one trick settles the question.  A bound
 *   keeps only the ranks its reasoning compared (marking more made the table's entries answer
 *   for fewer positions: the third hand's bound first cost 10% more nodes than it saved).  (DDS's quick tricks,
 *   cashing the top cards of the side on lead, were here too; with the leads ordered as below
 *   they cost more nodes than they saved.)
 * - A transposition table keyed on the suit lengths of each hand, the leader and whether spades
 *   are broken.  Each entry keeps bounds together with the owners of only those top cards of
 *   each suit that decided the result (the "relevant" ranks): small cards whose order never
 *   mattered are left out, so one entry answers for many positions (partition search).
 * - Equivalent cards: a run of one hand's cards with no other remaining card between them is
 *   searched once, and so is every card lower than a rank the result turned out not to depend
 *   on.
 * - Move ordering by the position in the trick: first the lead the table remembers for this
 *   position (the one that settled it for another count; failing that, the last lead that
 *   settled a position with the same suit lengths), then leads that leave the opponents
 *   few choices (this weighs most: three times as much as before cut a third of the nodes),
 *   that win the trick (cashing, to partner's winner, for partner to ruff), that go toward
 *   partner's second best under the left-hand opponent's best, or that set up the next
 *   round's winner; then second hand low, win cheaply and with a card that holds, beside
 *   partner's winner low unless a card of mine covers it and holds; discards low from long
 *   suits.  The weights are tuned on node counts (see gen_moves).  (The classic "killer move" of the same depth was tried: it cost four
 *   times the nodes.)
 *
 * The relevant ranks are what keep the table exact.  They are the ranks at or above which the
 * owner of each card must stay the same for the result to hold: the winner of every trick in
 * which it beat a card of its own suit, the top cards a bound counted, and the lowest card of a
 * run of equivalent cards whose top card is relevant (a run must not straddle the line).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TRUMP 3
#define NOSUIT 4
#define MAX_MOVES 16
#define ABOVE_ALL 0x8000u /* a rank bit above every card: "no rank of this suit matters" */
/* Entries a table may hold (22 bytes each) before it starts afresh: a full deal needs a few
 * hundred thousand. */
#define MAX_ENTRIES_DEFAULT (3u << 20)

typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

/* Counted by hand: the builtin is a library call on a baseline x86-64 build. */
static inline int popcount16(u16 m) {
    unsigned x = m;
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (int)((x + (x >> 8)) & 0x1Fu);
}
static inline u16 lowbit(u16 m) { return (u16)(m & (u16)(-(int)m)); }
static inline u16 highbit(u16 m) { return m ? (u16)(1u << (31 - __builtin_clz((unsigned)m))) : 0; }
/* Every rank bit at or above `bit` (bit is one set bit). */
static inline u16 at_or_above(u16 bit) { return (u16)~(bit - 1u); }
static inline u16 above(u16 bit) { return (u16)~((bit << 1) - 1u); }

typedef struct {
    /* Per suit, the owners of its top k cards, two bits a card (see `Planes`), shifted down
     * past the n - k other cards: `shift` = 2 (n - k), where n, the cards left in the suit, is
     * the same for every position of a bucket. */
    u32 top[4];
    uint8_t shift[4];
    int8_t lower, upper;
    /* the lead that last settled a question here: its suit (NOSUIT: none) and its place among
     * the suit's remaining cards from the lowest */
    uint8_t move_suit, move_index;
} Entry;

/* Who holds each remaining card of a suit, two bits a card over the remaining cards packed
 * from the lowest up (bits 2i and 2i + 1: the seat of the i-th lowest remaining card, 0 North
 * to 3 West).  The top k owners are the top 2k bits. */
typedef struct {
    u32 own[4];
    uint8_t n[4];
} Planes;

typedef struct {
    u64 lengths; /* 16 nibbles: the length of each suit in each hand */
    u32 extra;   /* leader | broken << 2 | 1 << 3 (slot in use) */
    u32 start;   /* this bucket's entries lie together: entries[start .. start + count) */
    u16 count, cap;
} Bucket;

typedef struct {
    int8_t suit;
    u16 bit; /* the card searched: the lowest of its run */
    u16 top; /* the highest card of its run */
    int weight;
} Move;

typedef struct {
    PyObject_HEAD
    int side;
    int counted[4];
    int by_side;
    int jokers;
    long long nodes;
    long long node_limit; /* 0: none */
    int aborted;
    /* the position being searched */
    u16 hand[4][4]; /* [seat][suit] */
    u16 rem[4];     /* cards still in the hands, per suit */
    u64 lengths;    /* the length of each suit in each hand, as lengths_key() counts them */
    int count[4];   /* the cards of each hand */
    int leader, broken, ntrick;
    int tsuit[4];
    u16 tbit[4];
    int at_root;
    int root_suit;
    u16 root_bit;
    /* the table */
    Bucket *buckets;
    u32 nbuckets, nused;
    Entry *entries;
    u32 nentries, cap, max_entries;
    u32 clears; /* times the table started afresh: entry indices kept across a search expire */
} Core;

/* What a position's lookup saw of its bucket, so that storing the position's result need not
 * scan the bucket again: the entries that matched the position without settling the question
 * (an entry the store would update is among them).  The bucket cannot change in between (every
 * position searched below has fewer cards, so other buckets), unless the table starts afresh. */
#define SEEN_MAX 8
typedef struct {
    u32 clears;
    int n; /* -1: too many to keep, scan the bucket */
    u32 index[SEEN_MAX];
} Seen;

/* -- the table ------------------------------------------------------------------------------ */

static int tt_init(Core *c, u32 nbuckets) {
    c->buckets = (Bucket *)calloc(nbuckets, sizeof(Bucket));
    if (!c->buckets) return -1;
    c->nbuckets = nbuckets;
    c->nused = 0;
    if (!c->entries) {
        c->cap = 1u << 14;
        c->entries = (Entry *)malloc(sizeof(Entry) * c->cap);
        if (!c->entries) return -1;
    }
    c->nentries = 0;
    return 0;
}

static void tt_clear(Core *c) {
    c->clears++;
    memset(c->buckets, 0, sizeof(Bucket) * c->nbuckets);
    c->nused = 0;
    c->nentries = 0;
}

static inline u32 tt_hash(u64 lengths, u32 extra, u32 nbuckets) {
    u64 h = (lengths ^ ((u64)extra << 61) ^ ((u64)extra * 0x9E3779B1u)) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (u32)(h >> 17) & (nbuckets - 1);
}

static Bucket *tt_find(Core *c, u64 lengths, u32 extra) {
    u32 i = tt_hash(lengths, extra, c->nbuckets);
    for (;;) {
        Bucket *b = &c->buckets[i];
        if (!b->extra) return NULL;
        if (b->lengths == lengths && b->extra == extra) return b;
        i = (i + 1) & (c->nbuckets - 1);
    }
}

static int tt_grow(Core *c) {
    u32 n = c->nbuckets * 2;
    Bucket *nb = (Bucket *)calloc(n, sizeof(Bucket));
    if (!nb) return -1;
    for (u32 i = 0; i < c->nbuckets; i++) {
        Bucket *b = &c->buckets[i];
        if (!b->extra) continue;
        u32 j = tt_hash(b->lengths, b->extra, n);
        while (nb[j].extra) j = (j + 1) & (n - 1);
        nb[j] = *b;
    }
    free(c->buckets);
    c->buckets = nb;
    c->nbuckets = n;
    return 0;
}

static Bucket *tt_slot(Core *c, u64 lengths, u32 extra) {
    if ((c->nused + 1) * 2 > c->nbuckets && tt_grow(c) < 0) return NULL;
    u32 i = tt_hash(lengths, extra, c->nbuckets);
    for (;;) {
        Bucket *b = &c->buckets[i];
        if (!b->extra) {
            b->lengths = lengths;
            b->extra = extra;
            b->start = 0;
            b->count = b->cap = 0;
            c->nused++;
            return b;
        }
        if (b->lengths == lengths && b->extra == extra) return b;
        i = (i + 1) & (c->nbuckets - 1);
    }
}

/* -- positions ------------------------------------------------------------------------------ */

static inline u64 lengths_key(const Core *c) {
    u64 k = 0;
    for (int seat = 0; seat < 4; seat++)
        for (int s = 0; s < 4; s++) k = (k << 4) | (u64)popcount16(c->hand[seat][s]);
    return k;
}

/* compress8[m][x]: the bits of x where m is set, packed to the bottom (a byte at a time). */
static uint8_t compress8[256][256];

/* spread8[x]: the bits of x spaced out to every other bit (bit i to bit 2i). */
static u16 spread8[256];

static void init_compress(void) {
    for (int x = 0; x < 256; x++) {
        int out = 0;
        for (int b = 0; b < 8; b++) out |= (x >> b & 1) << (2 * b);
        spread8[x] = (u16)out;
    }
    for (int m = 0; m < 256; m++)
        for (int x = 0; x < 256; x++) {
            int out = 0, k = 0;
            for (int b = 0; b < 8; b++)
                if (m >> b & 1) out |= (x >> b & 1) << k++;
            compress8[m][x] = (uint8_t)out;
        }
}

static inline u16 compress16(u16 x, u16 m) {
    return (u16)(compress8[m & 0xFF][x & 0xFF] |
                 (unsigned)compress8[m >> 8][x >> 8] << popcount16((u16)(m & 0xFF)));
}

static inline u32 spread16(u16 x) { return spread8[x & 0xFF] | (u32)spread8[x >> 8] << 16; }

static inline void planes_of(const Core *c, Planes *pl) {
    for (int s = 0; s < 4; s++) {
        u16 rem = c->rem[s];
        u16 p0 = compress16(c->hand[1][s] | c->hand[3][s], rem);
        u16 p1 = compress16(c->hand[2][s] | c->hand[3][s], rem);
        pl->own[s] = spread16(p0) | spread16(p1) << 1;
        pl->n[s] = (uint8_t)popcount16(rem);
    }
}

/* The top k remaining cards of a suit, as rank bits. */
static inline u16 top_cards(u16 rem, int k) {
    u16 out = 0;
    while (k-- > 0 && rem) {
        u16 b = highbit(rem);
        out |= b;
        rem ^= b;
    }
    return out;
}

static inline int tricks_left(const Core *c, int seat) { return c->count[seat]; }

/* The nibble of lengths_key() that counts one suit of one hand. */
static inline u64 length_unit(int seat, int suit) {
    return (u64)1 << (4 * (15 - (seat * 4 + suit)));
}

/* Index in the trick of the card winning it so far, and whether that card beat a card of its
 * own suit (then its rank decided the trick and is relevant). */
static inline int trick_leader_index(const Core *c, int n, int *same) {
    int best = 0;
    int bsuit = c->tsuit[0];
    u16 bbit = c->tbit[0];
    for (int i = 1; i < n; i++) {
        int s = c->tsuit[i];
        u16 b = c->tbit[i];
        if (s == bsuit) {
            if (b > bbit) {
                best = i;
                bbit = b;
            }
        } else if (s == TRUMP) {
            best = i;
            bsuit = TRUMP;
            bbit = b;
        }
    }
    int count = 0;
    for (int i = 0; i < n; i++) count += c->tsuit[i] == bsuit;
    *same = count > 1;
    return best;
}

/* -- bounds at the start of a trick --------------------------------------------------------- */

/* The n-th highest card of a mask (n >= 1, at most its size). */
static inline u16 nth_highest(u16 m, int n) {
    while (--n > 0) m ^= highbit(m);
    return highbit(m);
}

/* Tricks a side is sure of from trumps above all the opponents' trumps: each such trump wins
 * the trick it is played to, and one hand's go to different tricks. */
static int sure_trumps(const Core *c, int side, u16 *rel) {
    u16 a = c->hand[side][TRUMP], b = c->hand[side + 2][TRUMP];
    u16 opp = c->hand[1 - side][TRUMP] | c->hand[3 - side][TRUMP];
    if (!opp) return popcount16(a) > popcount16(b) ? popcount16(a) : popcount16(b);
    u16 top = highbit(opp);
    a &= above(top);
    b &= above(top);
    u16 counted = popcount16(a) >= popcount16(b) ? a : b;
    int n = popcount16(counted);
    /* the count rests on the owners of the trumps down to the lowest one counted */
    if (n) *rel |= nth_highest(counted, n);
    return n;
}

/* Whether the opponents of the side on lead are sure to win this trick: whatever the leader
 * leads, an opponent holds the top card of that suit and partner cannot ruff it.  `rel` gets
 * the top card of each suit the leader may lead. */
static int leader_loses_trick(const Core *c, int leader, u16 *rel) {
    int partner = leader ^ 2;
    const u16 *mine = c->hand[leader], *pm = c->hand[partner];
    u16 opp[4];
    for (int s = 0; s < 4; s++) opp[s] = c->hand[(leader + 1) & 3][s] | c->hand[(leader + 3) & 3][s];
    int last = (!c->broken && (mine[0] | mine[1] | mine[2])) ? 2 : 3;
    u16 r[4] = {0, 0, 0, 0};
    for (int s = 0; s <= last; s++) {
        if (!mine[s]) continue;
        u16 top = highbit(c->rem[s]);
        if (!(opp[s] & top)) return 0;
        if (s != TRUMP && !pm[s] && pm[TRUMP]) return 0;
        r[s] = top;
    }
    memcpy(rel, r, sizeof r);
    return 1;
}

/* Whether the side of the second hand to play is sure to win the trick in progress: the third
 * hand cannot ruff (it follows suit or holds no trump), and either a hand of the side can ruff,
 * or the side holds a card of the suit led above the card led and every card of the third
 * hand's.  `rel` gets that card, whose rank decided. */
static int second_hand_wins(const Core *c, int turn, u16 *rel) {
    int ls = c->tsuit[0];
    int partner = turn ^ 2, third = (turn + 1) & 3;
    const u16 *me = c->hand[turn], *pm = c->hand[partner], *th = c->hand[third];
    if (ls != TRUMP && !th[ls] && th[TRUMP]) return 0; /* the third hand may ruff */
    if (ls != TRUMP && ((!me[ls] && me[TRUMP]) || (!pm[ls] && pm[TRUMP]))) return 1;
    u16 ours = me[ls] | pm[ls];
    u16 top = highbit(ours);
    if (top && top > c->tbit[0] && top > th[ls]) {
        rel[ls] |= top;
        return 1;
    }
    return 0;
}

/* Whether the side of the third hand to play is sure to win the trick in progress: the card
 * winning it so far is partner's and the fourth hand cannot beat it, or the third hand holds a
 * card that beats it and that the fourth hand cannot beat.  `rel` gets the winning card. */
static int third_hand_wins(const Core *c, int turn, u16 *rel) {
    int ls = c->tsuit[0];
    const u16 *me = c->hand[turn], *fo = c->hand[(turn + 1) & 3];
    int same;
    int wi = trick_leader_index(c, 2, &same);
    int ws = c->tsuit[wi];
    u16 wb = c->tbit[wi];
    int follows = fo[ls] != 0;
    if (wi == 0) {
        /* partner's card wins so far */
        int beaten = ws == ls ? (follows ? fo[ls] > wb : (ls != TRUMP && fo[TRUMP] != 0))
                              : (!follows && fo[TRUMP] > wb);
        if (beaten) return 0;
        /* its rank matters where another card of its suit is, or may be, in the trick */
        if (c->tsuit[1] == ws || (follows && ws == ls) || (!follows && ws == TRUMP && fo[TRUMP]))
            rel[ws] |= wb;
        return 1;
    }
    if (me[ls]) {
        if (ws != ls) return 0; /* ruffed: following cannot beat it */
        u16 top = highbit(me[ls]);
        if (top < wb) return 0;
        int beaten = follows ? fo[ls] > top : (ls != TRUMP && fo[TRUMP] != 0);
        if (beaten) return 0;
        rel[ls] |= top;
        return 1;
    }
    if (ls == TRUMP || !me[TRUMP]) return 0;
    u16 top = highbit(me[TRUMP]);
    if (ws == TRUMP && top < wb) return 0;
    if (!follows && fo[TRUMP] > top) return 0;
    if (ws == TRUMP || (!follows && fo[TRUMP])) rel[TRUMP] |= top;
    return 1;
}

/* Whether `sure` tricks certain for `side` answer "can the maximiser take `need` of the `left`
 * tricks?": 1 yes, 0 no, -1 they do not settle it. */
static inline int settles(const Core *c, int side, int sure, int left, int need) {
    if (side == c->side) return sure >= need ? 1 : -1;
    return left - sure < need ? 0 : -1;
}

/* -- moves ---------------------------------------------------------------------------------- */

static inline int rank_index(u16 bit) { return 31 - __builtin_clz((unsigned)bit); }

/* The cards this hand may play, one per run of equivalent cards, weighted for the order. */
static int gen_moves(const Core *c, Move *moves, int pref_suit, u16 pref_bit) {
    int turn = (c->leader + c->ntrick) & 3;
    const u16 *h = c->hand[turn];
    int partner = turn ^ 2, lho = (turn + 1) & 3, rho = (turn + 3) & 3;
    int pos = c->ntrick;
    int first = 0, last = 3;
    int led = pos ? c->tsuit[0] : NOSUIT;
    if (pos) {
        if (h[led]) first = last = led;
    } else if (!c->broken && (h[0] | h[1] | h[2])) {
        last = 2;
    }
    /* cards of the trick so far, per suit, and the card winning it */
    u16 in_trick[4] = {0, 0, 0, 0};
    for (int i = 0; i < pos; i++) in_trick[c->tsuit[i]] |= c->tbit[i];
    int win_i = 0, same = 0;
    int win_suit = NOSUIT;
    u16 win_bit = 0;
    int partner_winning = 0;
    if (pos) {
        win_i = trick_leader_index(c, pos, &same);
        win_suit = c->tsuit[win_i];
        win_bit = c->tbit[win_i];
        partner_winning = ((c->leader + win_i) & 3) == partner;
    }
    int left = tricks_left(c, turn);
    int n = 0;
    for (int s = first; s <= last; s++) {
        u16 mine = h[s];
        if (!mine) continue;
        /* the other cards still in play (or in this trick): a run of mine ends below the
         * lowest of them above its lowest card */
        u16 others = (u16)((c->rem[s] | in_trick[s]) & ~mine);
        u16 left = mine;
        while (left) {
            u16 lo = lowbit(left);
            u16 stop = lowbit((u16)(others & ~((lo << 1) - 1u)));
            u16 run = (u16)(left & (stop ? (u16)(stop - 1u) : 0xFFFFu));
            u16 top = highbit(run);
            left ^= run;
            Move *m = &moves[n++];
            m->suit = (int8_t)s;
            m->bit = lo;
            m->top = top;
            m->weight = 0;
        }
    }
    if (n <= 1) return n;

    /* weights: what each suit's cards have in common is worked out once per suit.  The numbers
     * were first set by hand, then tuned by a coordinate search on the nodes every card's value
     * takes over 400 full-deal positions (deals 0-199 of benchmarks/solver.py, at the first lead
     * and in the first trick) and checked on 200 others (deals 200-299): 15% fewer nodes there,
     * 8% at 10 and 8 cards a hand; a second, finer pass took 3-6% more off full deals (held out
     * too), 2% at 10 and 8 cards.  What moved most: a discard no longer spares a suit's top
     * card (the search keeps winners where they matter on its own) and sheds low cards of long
     * suits first; beside partner's winning card, covering it with a card that holds comes
     * first; a lead to partner's winner and the leads toward partner's tenace weigh more. */
    int suit_base[4] = {0, 0, 0, 0};
    u16 suit_top[4] = {0, 0, 0, 0};   /* lead: the highest card of partner or opponents */
    u16 suit_opp[4] = {0, 0, 0, 0};   /* lead: the opponents' highest card */
    int suit_wins[4] = {0, 0, 0, 0};  /* lead: partner's card or ruff wins the trick */
    int suit_ruffed[4] = {0, 0, 0, 0};
    u16 suit_later[4] = {0, 0, 0, 0}; /* follow: the highest card a later opponent can beat us with */
    int partner_safe = 1;
    u16 overruff = 0; /* follow, ruffing: the highest trump of a later opponent void in the lead */
    if (pos == 0) {
        u16 opp_trumps = highbit(c->hand[lho][TRUMP] | c->hand[rho][TRUMP]);
        u16 partner_trump = highbit(c->hand[partner][TRUMP]);
        for (int s = first; s <= last; s++) {
            if (!h[s]) continue;
            u16 opp = c->hand[lho][s] | c->hand[rho][s];
            u16 pm = c->hand[partner][s];
            int plain = s != TRUMP;
            int lho_ruffs = plain && !c->hand[lho][s] && c->hand[lho][TRUMP];
            int rho_ruffs = plain && !c->hand[rho][s] && c->hand[rho][TRUMP];
            int partner_ruffs = plain && !pm && c->hand[partner][TRUMP];
            /* A smaller tree first: the opponents' choices grow with their cards in the suit,
             * and a void opponent may play anything. */
            int nl = popcount16(c->hand[lho][s]), nr = popcount16(c->hand[rho][s]);
            suit_base[s] = -((nl ? nl : left) + (nr ? nr : left)) * 12;
            u16 hi = highbit(c->rem[s]), second = highbit((u16)(c->rem[s] ^ hi));
            /* toward partner's second best when the left-hand opponent holds the best */
            if ((c->hand[lho][s] & hi) && (pm & second) && popcount16(pm) != 1) suit_base[s] += 50;
            /* a singleton to partner's winner, to ruff the return */
            if (plain && popcount16(h[s]) == 1 && h[TRUMP] && popcount16(pm) > 1 && (pm & hi))
                suit_base[s] += 28;
            suit_ruffed[s] = lho_ruffs || rho_ruffs;
            suit_opp[s] = highbit(opp);
            suit_top[s] = highbit(opp | pm);
            /* does the lead win the trick, by a top card of ours or by partner's ruff? */
            int top_wins = !suit_ruffed[s] || (partner_ruffs && partner_trump > opp_trumps);
            int ruff_wins = partner_ruffs && opp && !suit_ruffed[s];
            int partner_top = pm && highbit(pm) > suit_opp[s];
            suit_wins[s] = partner_top ? (top_wins ? 2 : 0) : (ruff_wins ? 1 : 0);
            suit_wins[s] |= top_wins ? 4 : 0;
        }
    } else {
        for (int s = first; s <= last; s++) {
            if (!h[s]) continue;
            for (int k = 1; k <= 3 - pos; k++) {
                int seat = (turn + k) & 3;
                if (seat != partner) suit_later[s] |= c->hand[seat][s];
            }
            suit_later[s] = highbit(suit_later[s]);
        }
        for (int k = 1; k <= 3 - pos; k++) {
            int seat = (turn + k) & 3;
            if (seat != partner && !c->hand[seat][led]) {
                u16 t = highbit(c->hand[seat][TRUMP]);
                if (t > overruff) overruff = t;
            }
        }
        if (partner_winning && pos < 3 && win_suit == led) {
            u16 ol = c->hand[lho][led];
            if (ol && highbit(ol) > win_bit) partner_safe = 0;
            if (!ol && c->hand[lho][TRUMP] && led != TRUMP) partner_safe = 0;
        }
    }
    for (int i = 0; i < n; i++) {
        Move *m = &moves[i];
        int s = m->suit;
        int r = rank_index(m->top);
        int w;
        if (pos == 0) {
            int mine_top = m->top > suit_opp[s];
            int wins = mine_top || (suit_wins[s] & 2) ? (suit_wins[s] & 4) != 0 : (suit_wins[s] & 1);
            if (wins) {
                if (m->top > suit_top[s]) w = 60 + r / 2; /* cash my winner */
                else if (suit_wins[s] & 2) w = 82 - r * 3 / 4; /* to partner's winner */
                else w = 62 - r * 3 / 4;                   /* for partner to ruff */
            } else {
                w = 30 - r;
                if (mine_top) {
                    w += 19; /* my top card, ruffed: draws their trump */
                } else {
                    /* the second and third best together: sets up the next round's winner */
                    u16 all = c->rem[s];
                    u16 hi = highbit(all), second = highbit((u16)(all ^ hi));
                    u16 third = highbit((u16)(all ^ hi ^ second));
                    if (m->top == second && third && m->bit <= third) w += 10;
                }
            }
            w += suit_base[s];
        } else {
            /* following or discarding */
            int beats = s == win_suit ? m->top > win_bit : s == TRUMP;
            if (s == led || (s == TRUMP && beats)) {
                if (partner_winning) {
                    /* keep low unless partner can be beaten later */
                    if (partner_safe) w = 34 - r;
                    else if (beats && suit_later[s] < m->top) w = 98 - r; /* cover and hold */
                    else w = (beats ? 65 : 56) - r;
                    if (s == TRUMP && s != led) w -= 50; /* never ruff partner's winner */
                } else if (beats) {
                    /* win: cheaply, and with a card the later hands cannot beat if possible */
                    int holds = s == TRUMP && s != led ? overruff < m->top : suit_later[s] < m->top;
                    w = (holds ? 70 : 45) - r;
                    if (pos == 1 && !holds) w = 35 - r;
                } else {
                    w = 30 - r;
                }
            } else {
                /* a discard: a low card of a long suit */
                w = popcount16(h[s]) * 15 / 8 - r * 3 / 2;
                if (partner_winning && s == TRUMP) w -= 40;
            }
        }
        if (s == pref_suit && m->bit <= pref_bit && pref_bit <= m->top) w += 1000; /* the table's lead */
        m->weight = w;
    }
    /* insertion sort, heaviest first */
    for (int i = 1; i < n; i++) {
        Move m = moves[i];
        int j = i - 1;
        while (j >= 0 && moves[j].weight < m.weight) {
            moves[j + 1] = moves[j];
            j--;
        }
        moves[j + 1] = m;
    }
    return n;
}

/* -- the search ----------------------------------------------------------------------------- */

static int search(Core *c, int need, u16 *rel);

/* Play one card for the seat to move, search the rest, take the card back. */
static int try_move(Core *c, int suit, u16 bit, int need, u16 *rel) {
    int turn = (c->leader + c->ntrick) & 3;
    int old_broken = c->broken;
    c->hand[turn][suit] ^= bit;
    c->rem[suit] ^= bit;
    c->lengths -= length_unit(turn, suit);
    c->count[turn]--;
    c->tsuit[c->ntrick] = suit;
    c->tbit[c->ntrick] = bit;
    c->ntrick++;
    if (suit == TRUMP) c->broken = 1;
    int res;
    if (c->ntrick == 4) {
        int same;
        int wi = trick_leader_index(c, 4, &same);
        int winner = (c->leader + wi) & 3;
        int ts[4];
        u16 tb[4];
        memcpy(ts, c->tsuit, sizeof ts);
        memcpy(tb, c->tbit, sizeof tb);
        int old_leader = c->leader;
        c->leader = winner;
        c->ntrick = 0;
        /* The next node looks its bucket up only after its bounds: start loading the bucket
         * now, so the memory wait overlaps them (3% less time on full deals, same nodes). */
        __builtin_prefetch(&c->buckets[tt_hash(c->lengths, (u32)winner | (u32)c->broken << 2 | 8u,
                                               c->nbuckets)]);
        res = search(c, need - c->counted[winner], rel);
        if (same) rel[ts[wi]] |= tb[wi];
        c->leader = old_leader;
        c->ntrick = 4;
        memcpy(c->tsuit, ts, sizeof ts);
        memcpy(c->tbit, tb, sizeof tb);
    } else {
        res = search(c, need, rel);
    }
    c->ntrick--;
    c->broken = old_broken;
    c->hand[turn][suit] ^= bit;
    c->rem[suit] ^= bit;
    c->lengths += length_unit(turn, suit);
    c->count[turn]++;
    return res;
}

static int last_trick(Core *c, int need, u16 *rel) {
    int leader = c->leader;
    for (int k = 0; k < 4; k++) {
        int seat = (leader + k) & 3;
        int s = 0;
        while (!c->hand[seat][s]) s++;
        c->tsuit[k] = s;
        c->tbit[k] = c->hand[seat][s];
    }
    int same;
    int wi = trick_leader_index(c, 4, &same);
    if (same) rel[c->tsuit[wi]] |= c->tbit[wi];
    return c->counted[(leader + wi) & 3] >= need;
}

static void tt_store(Core *c, u64 lengths, u32 extra, const Planes *pl, const u16 *rel,
                     int need, int result, int move_suit, int move_index, const Seen *seen) {
    u32 top[4];
    uint8_t shift[4];
    for (int s = 0; s < 4; s++) {
        int k = 0;
        if (rel[s]) k = popcount16(c->rem[s] & at_or_above(lowbit(rel[s])));
        shift[s] = (uint8_t)(2 * (pl->n[s] - k));
        top[s] = shift[s] < 32 ? pl->own[s] >> shift[s] : 0;
    }
    Bucket *b = tt_slot(c, lengths, extra);
    if (!b) return;
    int known = seen->n >= 0 && seen->clears == c->clears;
    u32 nscan = known ? (u32)seen->n : b->count;
    for (u32 k = 0; k < nscan; k++) {
        Entry *e = &c->entries[known ? seen->index[k] : b->start + k];
        if (!memcmp(e->shift, shift, sizeof shift) && !memcmp(e->top, top, sizeof top)) {
            if (result) {
                if (need > e->lower) e->lower = (int8_t)need;
            } else if (need - 1 < e->upper) {
                e->upper = (int8_t)(need - 1);
            }
            if (move_suit != NOSUIT) {
                e->move_suit = (uint8_t)move_suit;
                e->move_index = (uint8_t)move_index;
            }
            return;
        }
    }
    if (b->count == b->cap) {
        /* move the bucket's entries to a block twice the size at the end of the arena */
        u32 ncap = b->cap ? 2u * b->cap : 2u;
        if (ncap > 0x8000u) {
            /* one kind of position has piled up too many entries: start that kind afresh */
            b->count = 0;
            ncap = b->cap;
        } else if (c->nentries + ncap > c->cap) {
            u32 grown = c->cap;
            while (c->nentries + ncap > grown) grown *= 2;
            if (grown > c->max_entries) {
                tt_clear(c);
                b = tt_slot(c, lengths, extra);
                if (!b) return;
                ncap = 2;
            } else {
                Entry *ne = (Entry *)realloc(c->entries, sizeof(Entry) * grown);
                if (!ne) return;
                c->entries = ne;
                c->cap = grown;
            }
        }
        if (ncap != b->cap) {
            if (b->count)
                memcpy(&c->entries[c->nentries], &c->entries[b->start], sizeof(Entry) * b->count);
            b->start = c->nentries;
            b->cap = (u16)ncap;
            c->nentries += ncap;
        }
    }
    Entry *e = &c->entries[b->start + b->count++];
    memcpy(e->top, top, sizeof top);
    memcpy(e->shift, shift, sizeof shift);
    e->lower = result ? (int8_t)need : 0;
    e->upper = result ? 15 : (int8_t)(need - 1); /* 15: above any count of tricks */
    e->move_suit = (uint8_t)move_suit;
    e->move_index = (uint8_t)move_index;
}

/* The bounds at the start of a trick, each side's sure trumps and "the side on lead loses this
 * trick": 1 or 0 when they settle the question, else -1.  (Quick tricks for the side on lead,
 * cashing its top cards, were counted here too until the leads were ordered better: then they
 * cost 7% more nodes on random full deals than they saved, and 15% more time.) */
static int bounds(Core *c, int turn, int left, int need, u16 *rel) {
    u16 r[4] = {0, 0, 0, 0};
    int lead_side = turn & 1;
    int st = sure_trumps(c, lead_side, &r[TRUMP]);
    int settled = settles(c, lead_side, st, left, need);
    if (settled >= 0) {
        memcpy(rel, r, sizeof r);
        return settled;
    }
    u16 r2[4] = {0, 0, 0, 0};
    int theirs = sure_trumps(c, 1 - lead_side, &r2[TRUMP]);
    if (theirs == 0 && (lead_side == c->side ? need == left : need == 1) &&
        leader_loses_trick(c, turn, r2))
        theirs = 1;
    settled = settles(c, 1 - lead_side, theirs, left, need);
    if (settled >= 0) {
        memcpy(rel, r2, sizeof r2);
        return settled;
    }
    return -1;
}

/* The card an entry's lead names in the current position (its suit's card at that place from
 * the lowest), as a rank bit, if the hand `turn` holds it; else 0. */
static inline u16 entry_lead(const Core *c, const Entry *e, int turn) {
    u16 bit = c->rem[e->move_suit];
    for (int k = e->move_index; k > 0 && bit; k--) bit &= (u16)(bit - 1);
    bit = lowbit(bit);
    return (u16)(bit & c->hand[turn][e->move_suit]);
}

static int search(Core *c, int need, u16 *rel) {
    int turn = (c->leader + c->ntrick) & 3;
    int is_root = c->at_root;
    c->at_root = 0;
    rel[0] = rel[1] = rel[2] = rel[3] = 0;
    int left = tricks_left(c, turn);
    if (need <= 0) return 1;
    if (need > left) return 0;
    c->nodes++;
    if (c->node_limit && c->nodes > c->node_limit) {
        c->aborted = 1;
        return 0;
    }
    int maximiser = (turn & 1) == c->side;
    u64 lengths = 0;
    u32 extra = 0;
    Planes pl;
    Seen seen;
    seen.n = 0;
    seen.clears = c->clears;
    int boundary = c->ntrick == 0;
    int pref_suit = -1;
    u16 pref_bit = 0;
    if (boundary && !is_root) {
        if (left == 1) return last_trick(c, need, rel);
        if (c->by_side) {
            int settled = bounds(c, turn, left, need, rel);
            if (settled >= 0) return settled;
        }
        lengths = c->lengths;
        extra = (u32)turn | (u32)c->broken << 2 | 8u;
        planes_of(c, &pl);
        Bucket *b = tt_find(c, lengths, extra);
        if (b) {
            for (u32 i = b->start + b->count; i-- > b->start;) {
                Entry *e = &c->entries[i];
                /* one test of all four suits: fewer mispredicted branches in this scan,
                 * which reads some 20 entries a lookup on full deals */
                if (((pl.own[0] >> e->shift[0]) ^ e->top[0]) |
                    ((pl.own[1] >> e->shift[1]) ^ e->top[1]) |
                    ((pl.own[2] >> e->shift[2]) ^ e->top[2]) |
                    ((pl.own[3] >> e->shift[3]) ^ e->top[3]))
                    continue;
                int decided = -1;
                if (e->lower >= need) decided = 1;
                else if (e->upper < need) decided = 0;
                if (decided < 0) {
                    if (seen.n >= 0 && seen.n < SEEN_MAX) seen.index[seen.n++] = i;
                    else seen.n = -1;
                    if (pref_suit < 0 && e->move_suit != NOSUIT) {
                        /* the lead that settled this position for another count: first */
                        u16 bit = entry_lead(c, e, turn);
                        if (bit) {
                            pref_suit = e->move_suit;
                            pref_bit = bit;
                        }
                    }
                    continue;
                }
                for (int s = 0; s < 4; s++) rel[s] = top_cards(c->rem[s], pl.n[s] - e->shift[s] / 2);
                /* the entry that answered moves to the bucket's end, where the scan starts:
                 * entries that answer tend to answer again (15% fewer entries read on full
                 * deals, and 1% fewer nodes, the lead hint below reading the newest) */
                u32 last = b->start + b->count - 1;
                if (i != last) {
                    Entry swap = c->entries[last];
                    c->entries[last] = *e;
                    c->entries[i] = swap;
                }
                return decided;
            }
            if (pref_suit < 0) {
                /* No entry of this position knew a lead: try first the lead that last settled
                 * a position of the same suit lengths (the bucket's newest entry with one), if
                 * this hand holds that card.  Such positions differ only in who holds which
                 * ranks, and the same lead often works: 2-6% fewer nodes on full deals.  (The
                 * newest entry only: scanning on for a lead this hand holds did worse.) */
                for (u32 i = b->start + b->count; i-- > b->start;) {
                    const Entry *e = &c->entries[i];
                    if (e->move_suit == NOSUIT) continue;
                    u16 bit = entry_lead(c, e, turn);
                    if (bit) {
                        pref_suit = e->move_suit;
                        pref_bit = bit;
                    }
                    break;
                }
            }
        }
    }

    if (c->ntrick == 1 && c->by_side && !is_root && (maximiser ? need == 1 : need == left)) {
        u16 r[4] = {0, 0, 0, 0};
        if (second_hand_wins(c, turn, r)) {
            memcpy(rel, r, sizeof r);
            return maximiser;
        }
    }
    if (c->ntrick == 2 && c->by_side && !is_root && (maximiser ? need == 1 : need == left)) {
        u16 r[4] = {0, 0, 0, 0};
        if (third_hand_wins(c, turn, r)) {
            memcpy(rel, r, sizeof r);
            return maximiser;
        }
    }

    Move moves[MAX_MOVES];
    int n = gen_moves(c, moves, pref_suit, pref_bit);
    u16 acc[4] = {0, 0, 0, 0};
    int cut_suit = NOSUIT, cut_index = 0;
    u16 skip_below[4] = {0, 0, 0, 0};
    int result = !maximiser;
    for (int i = 0; i < n; i++) {
        Move *m = &moves[i];
        int s = m->suit;
        if (m->top < skip_below[s]) continue;
        u16 crel[4];
        int r = try_move(c, s, m->bit, need, crel);
        if (c->aborted) return 0;
        if (r == maximiser) {
            result = r;
            memcpy(acc, crel, sizeof crel);
            cut_suit = s;
            cut_index = popcount16((u16)(c->rem[s] & (m->bit - 1u)));
            if (is_root) {
                c->root_suit = s;
                c->root_bit = m->bit;
            }
            goto done;
        }
        for (int k = 0; k < 4; k++) acc[k] |= crel[k];
        u16 t = crel[s] ? lowbit(crel[s]) : ABOVE_ALL;
        if (m->top < t) {
            if (t > skip_below[s]) skip_below[s] = t;
        } else if (m->top != m->bit) {
            acc[s] |= m->bit; /* the run must not straddle the relevant line */
        }
    }
    if (is_root && n) {
        c->root_suit = moves[0].suit;
        c->root_bit = moves[0].bit;
    }
done:
    memcpy(rel, acc, sizeof acc);
    if (boundary && !is_root)
        tt_store(c, lengths, extra, &pl, rel, need, result, cut_suit, cut_index, &seen);
    return result;
}

/* -- the Python object ---------------------------------------------------------------------- */

static u16 suit_bits(u64 hand, int s, int jokers) {
    if (s < 3) return (u16)((hand >> (13 * s)) & 0x1FFF);
    if (!jokers) return (u16)((hand >> 39) & 0x1FFF);
    return (u16)(((hand >> 40) & 0xFFF) | ((hand >> 39) & 1) << 12 | ((hand >> 52) & 3) << 13);
}

static int card_to_suit_bit(long card, int jokers, int *suit, u16 *bit) {
    if (card < 0 || card > 53) return -1;
    if (card < 39) {
        *suit = (int)(card / 13);
        *bit = (u16)(1u << (card % 13));
        return 0;
    }
    *suit = TRUMP;
    if (!jokers) {
        if (card > 51) return -1;
        *bit = (u16)(1u << (card - 39));
    } else if (card == 39) {
        *bit = 1u << 12;
    } else if (card <= 51) {
        *bit = (u16)(1u << (card - 40));
    } else {
        *bit = (u16)(1u << (card - 52 + 13));
    }
    return 0;
}

static long suit_bit_to_card(int suit, u16 bit, int jokers) {
    int r = rank_index(bit);
    if (suit < 3) return suit * 13 + r;
    if (!jokers) return 39 + r;
    if (r < 12) return 40 + r;
    if (r == 12) return 39;
    return 52 + (r - 13);
}

static int load_position(Core *c, PyObject *hands, int leader, PyObject *trick, int broken) {
    PyObject *hseq = PySequence_Fast(hands, "hands must be a sequence of four masks");
    if (!hseq) return -1;
    if (PySequence_Fast_GET_SIZE(hseq) != 4) {
        Py_DECREF(hseq);
        PyErr_SetString(PyExc_ValueError, "hands must hold four masks");
        return -1;
    }
    for (int seat = 0; seat < 4; seat++) {
        u64 h = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(hseq, seat));
        if (PyErr_Occurred()) {
            Py_DECREF(hseq);
            return -1;
        }
        for (int s = 0; s < 4; s++) c->hand[seat][s] = suit_bits(h, s, c->jokers);
    }
    Py_DECREF(hseq);
    for (int s = 0; s < 4; s++)
        c->rem[s] = c->hand[0][s] | c->hand[1][s] | c->hand[2][s] | c->hand[3][s];
    c->lengths = lengths_key(c);
    for (int seat = 0; seat < 4; seat++)
        c->count[seat] = popcount16(c->hand[seat][0]) + popcount16(c->hand[seat][1]) +
                         popcount16(c->hand[seat][2]) + popcount16(c->hand[seat][3]);
    PyObject *tseq = PySequence_Fast(trick, "trick must be a sequence of cards");
    if (!tseq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(tseq);
    if (n > 3) {
        Py_DECREF(tseq);
        PyErr_SetString(PyExc_ValueError, "a trick in progress holds at most three cards");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long card = PyLong_AsLong(PySequence_Fast_GET_ITEM(tseq, i));
        if (PyErr_Occurred() || card_to_suit_bit(card, c->jokers, &c->tsuit[i], &c->tbit[i]) < 0) {
            Py_DECREF(tseq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "not a card of this deck");
            return -1;
        }
    }
    Py_DECREF(tseq);
    c->ntrick = (int)n;
    c->leader = leader & 3;
    c->broken = broken ? 1 : 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (c->tsuit[i] == TRUMP) c->broken = 1;
    c->aborted = 0;
    return 0;
}

static int Core_init(Core *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"side", "counted", "jokers", "node_limit", NULL};
    int side, counted = -1, jokers = 0;
    long long node_limit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|ipL", kwlist, &side, &counted, &jokers,
                                     &node_limit))
        return -1;
    self->side = side & 1;
    int by_side_mask = self->side ? 0xA : 0x5;
    if (counted < 0) counted = by_side_mask;
    for (int s = 0; s < 4; s++) self->counted[s] = (counted >> s) & 1;
    self->by_side = counted == by_side_mask;
    self->jokers = jokers;
    self->node_limit = node_limit > 0 ? node_limit : 0;
    self->nodes = 0;
    self->max_entries = MAX_ENTRIES_DEFAULT;

    if (!self->buckets && tt_init(self, 1u << 12) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void Core_dealloc(Core *self) {
    free(self->buckets);
    free(self->entries);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* at_least(hands, leader, trick, broken, need) -> 1, 0, or -1 when the node limit was hit */
static PyObject *Core_at_least(Core *self, PyObject *args) {
    PyObject *hands, *trick;
    int leader, broken, need;
    if (!PyArg_ParseTuple(args, "OiOpi", &hands, &leader, &trick, &broken, &need)) return NULL;
    if (load_position(self, hands, leader, trick, broken) < 0) return NULL;
    u16 rel[4];
    self->at_root = 0;
    int r = search(self, need, rel);
    return PyLong_FromLong(self->aborted ? -1 : r);
}

typedef struct {
    int suit;
    u16 bit;
    int need; /* the probe that found the card */
} RootProbe;

/* A first guess at the tricks of `side` from a trick boundary, where the search starts: the
 * side's cards among the top three cards of each plain suit and among the top trumps, as many
 * as the longest trump holding.  Only the speed depends on it: on random full deals it is off
 * by 1.4 tricks on average, where counting as many top cards as rounds in every suit
 * overestimated by 2.8. */
static int estimate(const Core *c, int side) {
    int ours = 0;
    for (int s = 0; s < 4; s++) {
        int rounds = 0;
        for (int seat = 0; seat < 4; seat++) {
            int l = popcount16(c->hand[seat][s]);
            if (l > rounds) rounds = l;
        }
        if (s != TRUMP && rounds > 3) rounds = 3;
        u16 top = top_cards(c->rem[s], rounds);
        ours += popcount16(top & (c->hand[side][s] | c->hand[side + 2][s]));
    }
    return ours;
}

/* One null-window question at the root, keeping the card that settled it: for the maximiser
 * the card that secured the highest count so far, for the minimiser the card that held the
 * count below the lowest failed need.  1 yes, 0 no, -1 at the node limit. */
static int root_probe(Core *c, int need, int maximiser, RootProbe *rp) {
    u16 rel[4];
    c->at_root = 1;
    c->root_suit = -1;
    int r = search(c, need, rel);
    c->at_root = 0;
    if (c->aborted) return -1;
    if (c->root_suit >= 0) {
        if (maximiser && r && need >= rp->need) {
            rp->suit = c->root_suit;
            rp->bit = c->root_bit;
            rp->need = need;
        } else if (!maximiser && !r && (rp->need < 0 || need <= rp->need)) {
            rp->suit = c->root_suit;
            rp->bit = c->root_bit;
            rp->need = need;
        }
    }
    return r;
}

/* A yes/no question about the count: "at least `need`?"; 1, 0, or -1 at the node limit. */
typedef int (*Question)(Core *c, int need, void *context);

/* The count within lo..hi from yes/no questions: one step at a time from `guess` when it lies
 * in lo+1..hi (each question near the count is the expensive kind, and a guess is usually
 * within a trick or two; a guess above hi counts as hi), otherwise a binary search.  -1 at the
 * node limit. */
static int settle(Core *c, int guess, int lo, int hi, Question ask, void *context) {
    if (guess > hi) guess = hi;
    int stepping = guess > lo;
    int probe = guess;
    while (lo < hi) {
        if (!stepping) probe = (lo + hi + 1) / 2;
        int r = ask(c, probe, context);
        if (r < 0) return -1;
        if (r) {
            lo = probe;
            probe++;
        } else {
            hi = probe - 1;
            probe--;
        }
    }
    return lo;
}

typedef struct {
    RootProbe *rp;
    int maximiser;
} RootQuestion;

static int ask_root(Core *c, int need, void *context) {
    RootQuestion *q = (RootQuestion *)context;
    return root_probe(c, need, q->maximiser, q->rp);
}

typedef struct {
    const Move *move;
    u16 *relu; /* the union of the ranks the answers rested on */
} MoveQuestion;

static int ask_move(Core *c, int need, void *context) {
    MoveQuestion *q = (MoveQuestion *)context;
    u16 crel[4];
    int r = try_move(c, q->move->suit, q->move->bit, need, crel);
    if (c->aborted) return -1;
    for (int k = 0; k < 4; k++) q->relu[k] |= crel[k];
    return r;
}

/* value(hands, leader, trick, broken, guess) -> (tricks, best card) or None at the node limit.
 * The best card is one that achieves the count for the player to move (-1 if none to play). */
static PyObject *Core_value(Core *self, PyObject *args) {
    PyObject *hands, *trick;
    int leader, broken, guess = -1, known_lo = 0, known_hi = -1;
    if (!PyArg_ParseTuple(args, "OiOp|iii", &hands, &leader, &trick, &broken, &guess, &known_lo,
                          &known_hi))
        return NULL;
    if (load_position(self, hands, leader, trick, broken) < 0) return NULL;
    int turn = (self->leader + self->ntrick) & 3;
    int maximiser = (turn & 1) == self->side;
    int lo = 0, hi = tricks_left(self, turn);
    if (hi == 0) return Py_BuildValue("(il)", 0, -1L);
    /* bounds the caller already knows (a sibling's value bounds this card's) */
    int bounded = known_lo > 0 || (known_hi >= 0 && known_hi < hi);
    if (known_lo > lo) lo = known_lo < hi ? known_lo : hi;
    if (known_hi >= 0 && known_hi < hi) hi = known_hi > lo ? known_hi : lo;
    RootProbe rp = {-1, 0, -1};
    if (guess < 0 && !bounded && self->by_side && self->ntrick == 0) {
        /* The estimate itself (two above it was better while leads were ordered less well;
         * now it costs 7% more nodes on random full deals). */
        guess = estimate(self, self->side);
    }
    RootQuestion question = {&rp, maximiser};
    int value = settle(self, guess, lo, hi, ask_root, &question);
    if (value < 0) Py_RETURN_NONE;
    int best_suit = rp.suit;
    u16 best_bit = rp.bit;
    if (bounded) return Py_BuildValue("(il)", value, -1L); /* a card's value: no card wanted */
    /* a maximiser at 0, or a minimiser at the full count: every card does as well */
    if ((maximiser && value == 0) || (!maximiser && value == tricks_left(self, turn)) ||
        best_suit < 0) {
        Move moves[MAX_MOVES];
        self->at_root = 0;
        if ((maximiser && value == 0) || (!maximiser && value == tricks_left(self, turn))) {
            int n = gen_moves(self, moves, -1, 0);
            if (n) {
                best_suit = moves[0].suit;
                best_bit = moves[0].bit;
            }
        } else {
            /* find the card by asking of each (rare: the settling probe was answered early) */
            int n = gen_moves(self, moves, -1, 0);
            for (int i = 0; i < n; i++) {
                int need = maximiser ? value : value + 1;
                u16 crel[4];
                int r = try_move(self, moves[i].suit, moves[i].bit, need, crel);
                if (self->aborted) Py_RETURN_NONE;
                if (r == maximiser) {
                    best_suit = moves[i].suit;
                    best_bit = moves[i].bit;
                    break;
                }
            }
        }
    }
    long card = best_suit < 0 ? -1 : suit_bit_to_card(best_suit, best_bit, self->jokers);
    return Py_BuildValue("(il)", value, card);
}

/* values(hands, leader, trick, broken) -> {card: tricks} for one card of each run of the player
 * to move, or None at the node limit.  The cards are asked in the search's order (the likely
 * best first), each one's questions starting from the best count of the cards before it (the
 * first card's from the position's estimate); a card lower than every rank another card's
 * answers rested on (in the same suit, that card's whole run lower too) shares that card's
 * count without a search.  (Settling the position's count and a best card first, then each
 * other card below it, took 4% more nodes and time on full deals.) */
static PyObject *Core_values(Core *self, PyObject *args) {
    PyObject *hands, *trick;
    int leader, broken;
    if (!PyArg_ParseTuple(args, "OiOp", &hands, &leader, &trick, &broken)) return NULL;
    if (load_position(self, hands, leader, trick, broken) < 0) return NULL;
    int turn = (self->leader + self->ntrick) & 3;
    int maximiser = (turn & 1) == self->side;
    int left = tricks_left(self, turn);
    PyObject *out = PyDict_New();
    if (!out || left == 0) return out;
    /* the best count so far (for the side to move), where the next card's questions start */
    int best = self->by_side && self->ntrick == 0 ? estimate(self, self->side) : -1;
    int asked = 0;
    Move moves[MAX_MOVES];
    int n = gen_moves(self, moves, -1, 0);
    /* per suit, the answers that cover lower cards: (threshold, count) */
    u16 cover_below[4][MAX_MOVES];
    int cover_value[4][MAX_MOVES];
    int ncover[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        const Move *m = &moves[i];
        int s = m->suit, value = -1;
        for (int j = 0; j < ncover[s]; j++)
            if (m->top < cover_below[s][j]) {
                value = cover_value[s][j];
                break;
            }
        if (value < 0) {
            u16 relu[4] = {0, 0, 0, 0};
            MoveQuestion q = {m, relu};
            value = settle(self, best, 0, left, ask_move, &q);
            if (value < 0) {
                Py_DECREF(out);
                Py_RETURN_NONE;
            }
            if (!asked++ || (maximiser ? value > best : value < best)) best = value;
            u16 t = relu[s] ? lowbit(relu[s]) : ABOVE_ALL;
            if (m->top < t) {
                cover_below[s][ncover[s]] = t;
                cover_value[s][ncover[s]++] = value;
            }
        }
        PyObject *key = PyLong_FromLong(suit_bit_to_card(s, m->bit, self->jokers));
        PyObject *val = PyLong_FromLong(value);
        if (!key || !val || PyDict_SetItem(out, key, val) < 0) {
            Py_XDECREF(key);
            Py_XDECREF(val);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(key);
        Py_DECREF(val);
    }
    return out;
}

static PyObject *Core_clear(Core *self, PyObject *Py_UNUSED(ignored)) {
    tt_clear(self);
    Py_RETURN_NONE;
}

static PyObject *Core_get_nodes(Core *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(self->nodes);
}

static int Core_set_nodes(Core *self, PyObject *value, void *Py_UNUSED(closure)) {
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->nodes = v;
    return 0;
}

static PyObject *Core_get_limit(Core *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(self->node_limit);
}

static int Core_set_limit(Core *self, PyObject *value, void *Py_UNUSED(closure)) {
    long long v = value == Py_None ? 0 : PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->node_limit = v > 0 ? v : 0;
    return 0;
}

static PyObject *Core_get_entries(Core *self, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLong(self->nentries);
}

static PyMethodDef Core_methods[] = {
    {"at_least", (PyCFunction)Core_at_least, METH_VARARGS,
     "at_least(hands, leader, trick, broken, need): 1 if the maximising side secures need "
     "counted tricks, 0 if not, -1 at the node limit"},
    {"value", (PyCFunction)Core_value, METH_VARARGS,
     "value(hands, leader, trick, broken, guess=-1, lo=0, hi=-1): (tricks, best card) within "
     "the known bounds lo..hi (hi -1: none), None at the node limit"},
    {"values", (PyCFunction)Core_values, METH_VARARGS,
     "values(hands, leader, trick, broken): {card: tricks} for one card of each run of the "
     "player to move (None at the node limit)"},
    {"clear", (PyCFunction)Core_clear, METH_NOARGS, "empty the transposition table"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Core_getset[] = {
    {"nodes", (getter)Core_get_nodes, (setter)Core_set_nodes, "search nodes visited", NULL},
    {"node_limit", (getter)Core_get_limit, (setter)Core_set_limit, "0 or None: no limit", NULL},
    {"entries", (getter)Core_get_entries, NULL, "entries in the transposition table", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "varaq._fastsolver.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One search objective of the compiled double-dummy solver, with its own table.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static struct PyModuleDef fastsolver_module = {
    PyModuleDef_HEAD_INIT, "varaq._fastsolver",
    "The compiled core of varaq.solver (see solver.py; the Python search is the reference).", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastsolver(void) {
    init_compress();
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&fastsolver_module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
