// The table page's store (src/varaq/web/static/store.js) under Node's own test runner:
// every server message the table receives and the page's own intents, as pure updates.
// Run: node --test tests/js/   (tests/test_client_store.py runs it inside pytest)

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  apply, canClaim, canUndo, closedReason, currentHint, currentNotice, initial, isPeopleTable,
  isWatching, legalNow, namesOf, offerEnded, seatNews,
} from "../../src/varaq/web/static/store.js";

const HAND = ["AS", "KS", "QH", "2C"];

/** A VIEW_JSON with only what the store reads; ``over`` replaces any field. */
function view(over = {}) {
  return {
    seat: "S", phase: "play", turn: "S", legal: HAND.slice(0, 2), hand: HAND, history: [],
    tricks: [], trick: [], leader: "S", totals: { NS: 0, EW: 0 }, why_not: {}, badges: [],
    ...over,
  };
}

/** A watcher's view: no hand, nothing legal. */
function watcherView(over = {}) {
  return view({ seat: null, hand: [], legal: [], why_not: {}, ...over });
}

function seats(over = {}) {
  return ["N", "E", "S", "W"].map((seat) => ({
    seat, kind: "person", name: { N: "Nia", E: "Eli", S: "Sam", W: "Wes" }[seat],
    you: seat === "S", host: seat === "S", present: true, away: false, auto: false,
    ...(over[seat] || {}),
  }));
}

function table(over = {}) {
  return { kind: "private", code: "K7WQ3M", can_start: true, next: null, seats: seats(), ...over };
}

/** A STATE as the socket sends it (an HTTP answer is the same without ``type``). */
function stateMessage(over = {}) {
  return {
    type: "state", id: "t1", kind: "private", version: 10, level: "normal", status: "playing",
    you: "S", view: view(), names: { N: "Nia", E: "Eli", S: "You", W: "Wes" }, table: table(),
    pace: "normal", events: [], resync: false, ...over,
  };
}

function eventMessage(version, event = {}, over = {}) {
  return {
    type: "event", version, event: { version, kind: "play", seat: "W", action: "9S", ...event },
    view: view({ turn: "N" }), ...over,
  };
}

/** The store after a first STATE. */
function seated(over = {}) {
  return apply(initial("t1"), stateMessage(over));
}

describe("state", () => {
  test("a first state fills the game and the table", () => {
    const s = seated();
    assert.equal(s.version, 10);
    assert.equal(s.you, "S");
    assert.equal(s.kind, "private");
    assert.equal(s.status, "playing");
    assert.deepEqual(s.shown, s.view);
    assert.deepEqual(s.shown.hand, HAND);
    assert.equal(s.pace, "normal");
    assert.ok(isPeopleTable(s));
    assert.ok(!isWatching(s));
    assert.deepEqual([...legalNow(s)], ["AS", "KS"]);
  });

  test("apply does not change the state it is given", () => {
    const s = seated();
    const copy = structuredClone(s);
    apply(s, eventMessage(11));
    apply(s, stateMessage({ version: 12 }));
    apply(s, { type: "lift", card: "AS" });
    apply(s, { type: "phrase", seat: "N", phrase: "gg" });
    assert.deepEqual(s, copy);
  });

  test("a newer state replaces the game and drops the events still queued", () => {
    let s = apply(seated(), eventMessage(11));
    assert.equal(s.queue.length, 1);
    const newer = view({ phase: "bid", turn: "E" });
    s = apply(s, stateMessage({ version: 14, view: newer }));
    assert.equal(s.version, 14);
    assert.deepEqual(s.shown, newer);
    assert.deepEqual(s.queue, []);
  });

  test("a new state stops an animation: the generation moves on", () => {
    const s = seated();
    assert.equal(apply(s, stateMessage({ version: 11 })).generation, s.generation + 1);
  });

  test("an older or equal state changes the table, not the game", () => {
    const s = apply(seated(), eventMessage(11));
    for (const version of [9, 11]) {
      const later = apply(s, stateMessage({
        version, view: view({ phase: "bid" }), status: "playing",
        table: table({ turn_deadline: 99 }),
      }));
      assert.equal(later.version, 11);
      assert.deepEqual(later.queue, s.queue);
      assert.equal(later.shown, s.shown);
      assert.equal(later.table.turn_deadline, 99);
    }
  });

  test("resync: the server never had our version, so its state replaces ours even if older", () => {
    const s = seated({ version: 40 });
    const after = apply(s, stateMessage({ version: 12, resync: true, view: view({ phase: "bid" }) }));
    assert.equal(after.version, 12);
    assert.equal(after.shown.phase, "bid");
  });

  test("the cards a computer player chose are marked from a first state's events", () => {
    const events = [
      { version: 8, kind: "play", seat: "W", action: "9S", auto: true },
      { version: 9, kind: "play", seat: "N", action: "TS" },
    ];
    assert.deepEqual(seated({ events }).auto, ["9S"]);
    const dealt = [...events, { version: 10, kind: "deal", seat: "E" }];
    assert.deepEqual(seated({ events: dealt }).auto, []);
  });

  test("a later state adds only the events after the version held", () => {
    const s = seated({ events: [{ version: 9, kind: "play", seat: "W", action: "9S", auto: true }] });
    const after = apply(s, stateMessage({
      version: 12,
      events: [
        { version: 10, kind: "play", seat: "E", action: "2S", auto: true },
        { version: 11, kind: "play", seat: "E", action: "3S", auto: true },
      ],
    }));
    assert.deepEqual(after.auto, ["9S", "3S"]);
  });

  test("the last view says the match is over; the status follows", () => {
    const s = seated({ version: 20, view: view({ phase: "over" }) });
    assert.equal(s.status, "over");
  });

  test("an HTTP answer without the socket's type field is a state too", () => {
    const answer = { ...stateMessage({ version: 11 }), type: "state" };
    delete answer.pace;
    const s = apply(seated(), answer);
    assert.equal(s.version, 11);
    assert.equal(s.pace, "normal");
  });
});

describe("losing the seat", () => {
  test("a state with you: null makes a watcher at once, with no hand", () => {
    let s = seated();
    s = apply(s, { type: "lift", card: "AS" });
    s = apply(s, { type: "hint", action: "AS", text: "lead the ace" });
    assert.equal(s.lifted, "AS");
    assert.ok(currentHint(s));
    // The server's fresh state after the person left (or the host gave the seat away), at the
    // version the page already holds.
    const after = apply(s, stateMessage({
      version: 10, you: null, view: watcherView(), names: { N: "Nia", E: "Eli", S: "Sam", W: "Wes" },
      table: table({ seats: seats({ S: { kind: "bot", name: "Computer", you: false, host: false } }) }),
    }));
    assert.equal(after.you, null);
    assert.ok(isWatching(after));
    assert.deepEqual(after.shown.hand, []);
    assert.deepEqual(after.view.hand, []);
    assert.equal(after.hint, null);
    assert.equal(after.lifted, null);
    assert.deepEqual(after.picks, []);
    assert.equal(legalNow(after).size, 0);
  });

  test("events queued with the old seat's view are dropped with it", () => {
    let s = apply(seated(), eventMessage(11));
    s = apply(s, eventMessage(12));
    assert.equal(s.queue.length, 2);
    const after = apply(s, stateMessage({ version: 12, you: null, view: watcherView() }));
    assert.deepEqual(after.queue, [], "no queued view (with the old hand) is left to show");
    assert.deepEqual(after.shown.hand, []);
    assert.deepEqual(after.view.hand, []);
  });

  test("the seat change replaces the game even when the state is not newer", () => {
    const s = seated({ version: 30 });
    const after = apply(s, stateMessage({ version: 29, you: null, view: watcherView() }));
    assert.equal(after.version, 29);
    assert.deepEqual(after.shown.hand, []);
  });

  test("events after the seat loss carry a watcher's view and are taken as usual", () => {
    let s = apply(seated(), stateMessage({ version: 11, you: null, view: watcherView() }));
    s = apply(s, eventMessage(12, {}, { view: watcherView({ turn: "E" }) }));
    s = apply(s, { type: "step" });
    assert.deepEqual(s.shown.hand, []);
    assert.equal(s.version, 12);
  });

  test("a watcher who sits down gets the seat's hand from the state at once", () => {
    const s = apply(initial("t1"), stateMessage({ you: null, view: watcherView() }));
    const after = apply(s, stateMessage({ version: 10, you: "E", view: view({ seat: "E" }) }));
    assert.equal(after.you, "E");
    assert.deepEqual(after.shown.hand, HAND);
  });
});

describe("event", () => {
  test("the next version is queued for the page to animate", () => {
    const s = apply(seated(), eventMessage(11));
    assert.equal(s.version, 11);
    assert.equal(s.queue.length, 1);
    assert.equal(s.shown.turn, "S", "the screen lags until the page steps");
    assert.equal(legalNow(s).size, 0, "nothing to do while events wait to be shown");
  });

  test("an event at or below the version held is ignored", () => {
    const s = seated();
    assert.equal(apply(s, eventMessage(10)), s);
    assert.equal(apply(s, eventMessage(3)), s);
  });

  test("a gap in the versions asks for a full state and keeps the old one", () => {
    const s = seated();
    const after = apply(s, eventMessage(12));
    assert.equal(after.version, 10);
    assert.equal(after.queue.length, 0);
    assert.equal(after.gaps, s.gaps + 1);
  });

  test("an event's table is taken with it", () => {
    const s = apply(seated(), eventMessage(11, {}, { status: "playing", table: table({ ready: ["N"] }) }));
    assert.deepEqual(s.table.ready, ["N"]);
  });

  test("step shows the queued events one at a time, then a trick stays until collected", () => {
    const trick = { leader: "S", cards: ["AS", "2S", "3S", "4S"], winner: "S" };
    let s = seated();
    s = apply(s, eventMessage(11, { seat: "E", action: "2S", auto: true }, { view: view({ turn: "N" }) }));
    s = apply(s, eventMessage(12, { seat: "W", action: "4S", trick }, { view: view({ turn: "S", trick: [] }) }));
    s = apply(s, { type: "animating", on: true });
    s = apply(s, { type: "step" });
    assert.equal(s.shown.turn, "N");
    assert.equal(s.finished, null);
    assert.deepEqual(s.auto, ["2S"]);
    s = apply(s, { type: "step" });
    assert.deepEqual(s.finished, trick);
    assert.equal(s.queue.length, 0);
    s = apply(s, { type: "collected" });
    assert.equal(s.finished, null);
    assert.equal(legalNow(s).size, 0, "still animating");
    s = apply(s, { type: "animating", on: false });
    assert.deepEqual([...legalNow(s)], ["AS", "KS"]);
  });

  test("a deal forgets the computer player's marks of the hand before", () => {
    let s = seated({ events: [{ version: 10, kind: "play", seat: "W", action: "9S", auto: true }] });
    s = apply(s, eventMessage(11, { kind: "deal", seat: "E", action: null }));
    s = apply(s, { type: "step" });
    assert.deepEqual(s.auto, []);
  });
});

describe("table", () => {
  test("a table message replaces the table and the status, never the game", () => {
    const s = seated({ status: "seating" });
    const after = apply(s, { type: "table", version: 10, status: "playing", table: table({ turn_deadline: 5 }) });
    assert.equal(after.status, "playing");
    assert.equal(after.table.turn_deadline, 5);
    assert.equal(after.shown, s.shown);
    assert.equal(after.version, s.version);
  });

  test("the seats' names are the names of a table of people", () => {
    const s = seated();
    assert.equal(namesOf(s).N, "Nia");
    assert.equal(namesOf(apply(initial(), stateMessage({ kind: "solo", names: { N: "Partner" } }))).N, "Partner");
  });

  test("the table's next match is remembered, and an again message says the same", () => {
    assert.equal(apply(seated(), { type: "table", table: table({ next: "t2" }) }).next, "t2");
    assert.equal(apply(seated(), { type: "again", id: "t3" }).next, "t3");
  });

  test("an offer this person made is remembered until it ends", () => {
    const offer = { kind: "concede", seat: "S", until: 1000 };
    const offered = apply(seated(), { type: "table", table: table({ offer }) });
    assert.deepEqual(offered.offerMade, offer);
    const ended = apply(offered, { type: "table", table: table({ offer: null }) });
    assert.equal(ended.offerMade, null);
    assert.deepEqual(offerEnded(offered, ended), offer);
    assert.equal(offerEnded(seated(), ended), null);
  });

  test("the partner's offer is answered once", () => {
    const offer = { kind: "concede", seat: "N", until: 2000 };
    const s = apply(apply(seated(), { type: "table", table: table({ offer }) }), { type: "offer-answered" });
    assert.equal(s.answered, 2000);
    assert.equal(s.offerMade, null);
  });

  test("seat news: arrivals, departures, drops and returns, never the viewer's own seat", () => {
    const words = { N: "North", E: "East", S: "South", W: "West" };
    const before = seats({ E: { kind: "open", name: "" } });
    assert.deepEqual(seatNews(before, seats(), words), ["Eli sat down at East."]);
    assert.deepEqual(seatNews(seats(), seats({ W: { kind: "bot", name: "Computer" } }), words),
      ["Wes's seat went to a computer player."]);
    assert.deepEqual(seatNews(seats(), seats({ N: { away: true } }), words), ["Nia dropped: reconnecting."]);
    assert.deepEqual(seatNews(seats({ N: { away: true } }), seats(), words), ["Nia is back."]);
    assert.deepEqual(seatNews(seats(), seats({ S: { away: true } }), words), []);
  });
});

describe("hint, error, concede, pace, phrase", () => {
  test("a hint belongs to the version it was asked at", () => {
    const s = apply(seated(), { type: "hint", action: "AS", text: "Lead the ace.", bot: "hard" });
    assert.deepEqual(currentHint(s), { action: "AS", text: "Lead the ace.", version: 10 });
    assert.equal(currentHint(apply(s, eventMessage(11))), null);
  });

  test("an error is kept as the last refusal; nothing else changes", () => {
    const s = seated();
    const after = apply(s, { type: "error", error: "S cannot play 9S: must follow hearts", status: 409 });
    assert.equal(after.error, "S cannot play 9S: must follow hearts");
    assert.equal(after.shown, s.shown);
    assert.equal(after.version, s.version);
  });

  test("a concede answer changes nothing (the offer comes with the table)", () => {
    const s = seated();
    assert.equal(apply(s, { type: "concede", concede: "offered" }), s);
  });

  test("pace is the table's speed", () => {
    assert.equal(apply(seated(), { type: "pace", pace: "fast" }).pace, "fast");
  });

  test("a phrase is a bubble by its seat until it is gone", () => {
    let s = apply(seated(), { type: "phrase", seat: "N", phrase: "gg", text: "Good game" });
    assert.deepEqual(s.bubbles.N, { text: "Good game", n: 1 });
    s = apply(s, { type: "phrase", seat: "N", phrase: "thanks" });
    assert.deepEqual(s.bubbles.N, { text: "Thanks", n: 2 });
    assert.equal(apply(s, { type: "bubble-gone", seat: "N", n: 1 }).bubbles.N.n, 2, "an old timer");
    assert.equal(apply(s, { type: "bubble-gone", seat: "N", n: 2 }).bubbles.N, undefined);
    assert.equal(apply(s, { type: "phrase", seat: "N", phrase: "nonsense" }), s);
  });

  test("an unknown message leaves the state alone", () => {
    const s = seated();
    assert.equal(apply(s, { type: "no-such-thing" }), s);
  });
});

describe("the page's intents", () => {
  test("a lifted card stays only while it may be played", () => {
    let s = apply(seated(), { type: "lift", card: "AS" });
    assert.equal(s.lifted, "AS");
    assert.equal(apply(s, { type: "lift", card: "QH" }).lifted, null, "QH is not legal");
    assert.equal(apply(s, { type: "sending", on: true }).lifted, null);
    s = apply(s, eventMessage(11));
    assert.equal(s.lifted, null);
  });

  test("picks for the exchange: up to the number to pass, and only during one's exchange", () => {
    let s = seated({ view: view({ phase: "exchange", turn: "S", legal: HAND }) });
    s = apply(s, { type: "pick", card: "AS", need: 2 });
    s = apply(s, { type: "pick", card: "KS", need: 2 });
    s = apply(s, { type: "pick", card: "QH", need: 2 });
    assert.deepEqual(s.picks, ["AS", "KS"]);
    assert.deepEqual(apply(s, { type: "pick", card: "AS", need: 2 }).picks, ["KS"]);
    assert.deepEqual(apply(s, stateMessage({ version: 11 })).picks, [], "the exchange is over");
  });

  test("waiting for the answer's events: nothing legal until they are shown", () => {
    let s = apply(seated(), { type: "sent", version: 11 });
    assert.equal(legalNow(s).size, 0);
    s = apply(s, eventMessage(11, {}, { view: view() }));
    s = apply(s, { type: "step" });
    assert.deepEqual([...legalNow(s)], ["AS", "KS"]);
  });

  test("dialogs the player closed stay closed", () => {
    let s = apply(seated(), { type: "summary-closed", hand: 3 });
    assert.equal(s.summaryClosedFor, 3);
    s = apply(s, { type: "over-closed" });
    assert.ok(s.overClosed);
  });

  test("entering another table forgets this one", () => {
    const s = apply(apply(seated(), { type: "connection", status: "open" }), { type: "enter", id: "t9" });
    assert.deepEqual(s, { ...initial("t9"), connection: "open" });
  });

  test("a position's turn is announced once", () => {
    const s = apply(seated(), { type: "turn-announced" });
    assert.equal(s.turnAnnounced, 10);
  });
});

describe("a table an administrator closed", () => {
  test("its reason is kept and nothing can be played any more", () => {
    const open = seated();
    assert.equal(closedReason(open), null);
    const closed = apply(open, {
      type: "table", version: 11, status: "closed",
      table: table({ closed: { reason: "abuse reported" } }),
    });
    assert.equal(closedReason(closed), "abuse reported");
    assert.equal(legalNow(closed).size, 0);
  });
});

describe("undo and claim", () => {
  /** A single-player table where South has bid and it is South's card. */
  function solo(over = {}) {
    return seated({
      kind: "solo", table: { kind: "solo", seats: [] },
      view: view({ bids: { N: 3, E: 2, S: 4, W: 1 } }), ...over,
    });
  }

  test("an undo event shows its view at once and drops what was still to animate", () => {
    let s = apply(solo(), eventMessage(11, { seat: "S", action: "AS" }, { view: view({ turn: "W" }) }));
    s = apply(s, eventMessage(12, { seat: "W", action: "3S" }, { view: view({ turn: "N" }) }));
    assert.equal(s.queue.length, 2);
    const back = view({ bids: { N: 3, E: 2, S: 4, W: 1 }, legal: ["AS", "KS"] });
    const undone = apply(s, eventMessage(13, { kind: "undo", seat: "S", action: "undo 2" },
      { view: back }));
    assert.equal(undone.version, 13);
    assert.deepEqual(undone.queue, []);
    assert.equal(undone.shown, back);
    assert.equal(undone.generation, s.generation + 1);
    assert.deepEqual(currentNotice(undone), { kind: "undo", version: 13, seat: "S", count: 2 });
  });

  test("the notice lasts while its position is on screen", () => {
    const undone = apply(solo(), { type: "undone", count: 1 });
    assert.equal(currentNotice(undone).kind, "undo");
    const later = apply(undone, eventMessage(11));
    assert.equal(currentNotice(later), null);
  });

  test("a refused claim keeps the server's reason for the status line", () => {
    const s = apply(solo(), { type: "claim-refused", reason: "East can still take a trick with the K♠" });
    assert.deepEqual(currentNotice(s), {
      kind: "claim-refused", version: 10, text: "East can still take a trick with the K♠",
    });
  });

  test("a claim answered over HTTP says so too", () => {
    const s = apply(solo(), { type: "claimed", seat: "S" });
    assert.deepEqual(currentNotice(s), { kind: "claim", version: 10, seat: "S" });
  });

  test("a claim event is queued like a card and says who claimed", () => {
    const over = view({ phase: "deal", turn: null, legal: [] });
    const s = apply(solo(), eventMessage(11, { kind: "claim", seat: "N", action: "claim N" },
      { view: over }));
    assert.equal(s.queue.length, 1);
    assert.deepEqual(currentNotice(s), { kind: "claim", version: 11, seat: "N" });
  });

  test("undo is offered at a single-player table once South has bid, never elsewhere", () => {
    assert.equal(canUndo(solo()), true);
    assert.equal(canUndo(solo({ view: view({ bids: { N: 3, E: null, S: null, W: null } }) })), false);
    assert.equal(canUndo(seated()), false);  // a table of people
    assert.equal(canUndo(solo({ kind: "daily", table: { kind: "daily", seats: [] } })), false);
    assert.equal(canUndo(solo({ view: view({ phase: "deal", bids: { S: 4 } }) })), false);
  });

  test("claim is offered to a seated player in the play, with nothing on its way", () => {
    assert.equal(canClaim(solo()), true);
    assert.equal(canClaim(seated()), true);
    assert.equal(canClaim(apply(solo(), { type: "sending", on: true })), false);
    assert.equal(canClaim(solo({ view: view({ phase: "bid" }) })), false);
    assert.equal(canClaim(seated({ you: null, view: watcherView() })), false);
    assert.equal(canClaim(solo({ kind: "daily", table: { kind: "daily", seats: [] } })), false);
  });
});
