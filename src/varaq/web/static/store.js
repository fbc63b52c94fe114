// @ts-check
// The table page's one store: everything the page knows about the table it shows, and the one
// function that changes it. ``apply(state, message)`` takes the state and either a message
// from the server (a socket message, or an HTTP answer given as a ``state`` message) or one of
// the page's own intents (a lifted card, a closed dialog, an animation step), and returns the
// next state. It never touches the page, the clock or the network, so it is tested alone
// (tests/js/store.test.mjs) and every drawing function can be a function of its result.
//
// Versions make every path safe: an event at or below the version held is old news and is
// ignored; a gap asks for a full state; a full state replaces the game part unless it is older
// than what is held. A full state that seats the reader differently (they left, or their seat
// went to a computer player, so ``you`` is now null) replaces the game part at once whatever
// its version: the old seat's hand must not stay on the screen for a moment longer.

/** @typedef {"N" | "E" | "S" | "W"} Seat */
/** @typedef {"NS" | "EW"} Side */

/**
 * A trick as the server sends it (``leader``, ``cards`` in the order played, ``winner``).
 * @typedef {{leader: string, cards: string[], winner?: string | null}} Trick
 */

/**
 * VIEW_JSON (docs/protocol.md): what the reader may see of the game. Only the fields the
 * store reads are named; the drawing modules read the rest.
 * @typedef {{
 *   seat: string | null, phase: string, turn: string | null, legal: string[],
 *   history: any[], tricks: any[], trick: string[], leader?: string | null,
 *   totals: Record<string, number>, why_not?: Record<string, string>, badges?: any[],
 *   [key: string]: any
 * }} View
 */

/**
 * An EVENT (docs/protocol.md).
 * @typedef {{
 *   version: number, kind: string, seat?: string | null, action?: string | null,
 *   trick?: Trick | null, auto?: boolean, [key: string]: any
 * }} GameEvent
 */

/**
 * A seat of TABLE: who sits there and, at a table of people, whether they are here.
 * @typedef {{
 *   seat: string, kind: string, name: string, you?: boolean, host?: boolean,
 *   present?: boolean, away?: boolean, takeover?: number | null, auto?: boolean
 * }} SeatDoc
 */

/** @typedef {{kind: string, seat: string, until: number}} Offer */

/**
 * TABLE (docs/protocol.md): the table around the game.
 * @typedef {{
 *   kind?: string, code?: string | null, fill_bots?: boolean, can_start?: boolean,
 *   next?: string | null, seats?: SeatDoc[], turn_timer?: number,
 *   turn_deadline?: number | null, next_hand_at?: number | null, ready?: string[],
 *   offer?: Offer | null, daily?: {date: string, late?: boolean, counted?: boolean} | null,
 *   claim?: {seat: string, until: number, waiting: string[]} | null,
 *   closed?: {reason: string} | null, public?: boolean, waited?: number | null
 * }} TableDoc
 */

/** An event waiting to be animated, with the view after it. @typedef {{event: GameEvent, view: View}} Step */

/**
 * The page's state.
 * @typedef {{
 *   id: string | null,
 *   kind: string | null,
 *   you: string | null,
 *   status: string | null,
 *   table: TableDoc | null,
 *   names: Record<string, string>,
 *   pace: string | null,
 *   version: number,
 *   view: View | null,
 *   shown: View | null,
 *   finished: Trick | null,
 *   queue: Step[],
 *   animating: boolean,
 *   generation: number,
 *   gaps: number,
 *   auto: string[],
 *   next: string | null,
 *   hint: {action: string, text: string, version: number} | null,
 *   bubbles: Record<string, {text: string, n: number}>,
 *   phrases: number,
 *   lifted: string | null,
 *   picks: string[],
 *   summaryClosedFor: number,
 *   overClosed: boolean,
 *   sending: boolean,
 *   awaitVersion: number,
 *   answered: number | null,
 *   offerMade: Offer | null,
 *   turnAnnounced: number,
 *   connection: string,
 *   error: string | null,
 *   notice: Notice | null,
 * }} State
 */

/**
 * What the status line says about an undo or a claim, while the position it is about is on
 * screen (``version``): ``undo`` (moves taken back), ``claim`` (a claim ended the hand, by
 * ``seat``) or ``claim-refused`` (``text``: the server's reason).
 * @typedef {{kind: "undo" | "claim" | "claim-refused", version: number, seat?: string,
 *   count?: number, text?: string}} Notice
 */

/** The server's quick phrases (src/varaq/service/online.py PHRASES), in menu order. */
export const PHRASES = /** @type {Record<string, string>} */ ({
  hello: "Hello!",
  gg: "Good game",
  nice: "Nice play",
  well_bid: "Well bid",
  sorry: "Sorry, partner",
  thanks: "Thanks",
  oops: "Oops",
  hurry: "Your turn",
});

const PEOPLE_KINDS = new Set(["private", "quick"]);

/**
 * The state of a page that shows no table yet (or has just been sent to table ``id``).
 * @param {string | null} [id]
 * @returns {State}
 */
export function initial(id = null) {
  return {
    id,
    kind: null,
    you: null,
    status: null,
    table: null,
    names: {},
    pace: null,
    version: 0,
    view: null,
    shown: null,
    finished: null,
    queue: [],
    animating: false,
    generation: 0,
    gaps: 0,
    auto: [],
    next: null,
    hint: null,
    bubbles: {},
    phrases: 0,
    lifted: null,
    picks: [],
    summaryClosedFor: -1,
    overClosed: false,
    sending: false,
    awaitVersion: 0,
    answered: null,
    offerMade: null,
    turnAnnounced: -1,
    connection: "closed",
    error: null,
    notice: null,
  };
}

// ---------------------------------------------------------------- questions about a state

/** A table where people play together (presence, timers, offers, phrases). @param {State} s */
export function isPeopleTable(s) {
  return PEOPLE_KINDS.has(s.kind || "");
}

/** A person at a table of people who holds no seat there. @param {State} s */
export function isWatching(s) {
  return isPeopleTable(s) && s.you === null;
}

/** An action is on its way, or its answer is ahead of the events shown. @param {State} s */
export function waiting(s) {
  return s.sending || s.version < s.awaitVersion;
}

/** Whether what is on screen lags what is known (events still to animate). @param {State} s */
export function behind(s) {
  return s.animating || s.queue.length > 0;
}

/**
 * The moves the player may make now: none while events are still being shown or an action
 * of theirs is on its way.
 * @param {State} s
 * @returns {Set<string>}
 */
export function legalNow(s) {
  if (!s.shown || behind(s) || waiting(s) || closedReason(s) !== null) return new Set();
  return new Set(s.shown.legal || []);
}

/** Why an administrator closed this table, or null while it is open. @param {State} s */
export function closedReason(s) {
  const closed = s.table && s.table.closed;
  return closed ? String(closed.reason || "") : null;
}

/** The undo or claim notice for the position on screen, if any. @param {State} s */
export function currentNotice(s) {
  return s.notice && s.notice.version === s.version ? s.notice : null;
}

/**
 * Whether the Undo button may be pressed: a single-player game (never the daily nor a table
 * of people), in the bidding or the play, once the player has bid. The server decides
 * what an undo takes back, and refuses with its reason when there is nothing.
 * @param {State} s
 */
export function canUndo(s) {
  const view = s.shown;
  if (s.kind !== "solo" || !view || s.sending || closedReason(s) !== null) return false;
  if (view.phase !== "bid" && view.phase !== "play") return false;
  const bids = view.bids || {};
  return bids[view.seat || "S"] !== null && bids[view.seat || "S"] !== undefined;
}

/**
 * Whether the Claim button may be pressed: a seated player, cards in the play, nothing on
 * its way, not at the daily. Whether the claim holds is for the server's solver to say.
 * @param {State} s
 */
export function canClaim(s) {
  const view = s.shown;
  if (s.kind === "daily") return false;  // the daily takes no claims: every card is played
  if (!view || view.phase !== "play" || !view.seat || behind(s) || waiting(s)) return false;
  return closedReason(s) === null && !isWatching(s);
}

/** The hint for the position held, if one was asked for it. @param {State} s */
export function currentHint(s) {
  return s.hint && s.hint.version === s.version ? s.hint : null;
}

/** @param {State} s @param {string} seat @returns {SeatDoc | null} */
export function seatDoc(s, seat) {
  const seats = (s.table && s.table.seats) || [];
  return seats.find((doc) => doc.seat === seat) || null;
}

/** Names from the seats (people's names, "You" for the viewer). @param {State} s */
export function seatNames(s) {
  const seats = (s.table && s.table.seats) || [];
  return Object.fromEntries(seats.map((doc) => [doc.seat, doc.name]));
}

/** The names the page calls the seats by: the STATE's, and at a table of people the seats'.
 * @param {State} s */
export function namesOf(s) {
  return isPeopleTable(s) ? { ...s.names, ...seatNames(s) } : s.names;
}

/** Whether the match on screen (or the table) is over. @param {State} s */
export function matchOver(s) {
  return s.status === "over" || Boolean(s.shown && s.shown.phase === "over")
    || Boolean(s.view && s.view.phase === "over");
}

// ---------------------------------------------------------------- the one update

/**
 * The next state after ``message``.
 *
 * Server messages (docs/protocol.md): ``state`` (a socket's STATE, or any HTTP answer that
 * carries one), ``event``, ``table``, ``hint``, ``error``, ``concede``, ``pace``, ``phrase``,
 * ``again``. The page's intents: ``enter``, ``step``, ``collected``, ``animating``, ``lift``,
 * ``undone`` (the server took back ``count`` moves), ``claimed`` (the ``seat``'s claim held),
 * ``claim-refused`` (with the ``reason``),
 * ``pick``, ``clear-picks``, ``sending``, ``sent``, ``summary-closed``, ``over-closed``,
 * ``offer-answered``, ``bubble-gone``, ``turn-announced``, ``connection``.
 * An unknown message leaves the state as it was.
 *
 * @param {State} s
 * @param {{type: string, [key: string]: any}} m
 * @returns {State}
 */
export function apply(s, m) {
  switch (m.type) {
    case "state":
      return settle(takeState(s, m));
    case "event":
      return settle(takeEvent(s, m));
    case "table":
      return settle(takeTable(s, m.table, m.status));
    case "hint":
      if (typeof m.action !== "string") return s;
      return settle({ ...s, hint: { action: m.action, text: String(m.text || ""), version: s.version } });
    case "error":
      return { ...s, error: String(m.error || "") };
    case "concede":
      // Only a notice (the offer itself arrives in the table's ``offer``).
      return s;
    case "pace":
      return typeof m.pace === "string" ? { ...s, pace: m.pace } : s;
    case "phrase": {
      const text = String(m.text || PHRASES[m.phrase] || "");
      if (!text || !m.seat) return s;
      const n = s.phrases + 1;
      return { ...s, phrases: n, bubbles: { ...s.bubbles, [m.seat]: { text, n } } };
    }
    case "again":
      return typeof m.id === "string" ? { ...s, next: m.id } : s;
    // ------------------------------------------------------------ the page's own intents
    case "enter":
      return { ...initial(m.id || null), connection: s.connection };
    case "step":
      return settle(step(s));
    case "collected":
      return { ...s, finished: null };
    case "animating":
      return settle({ ...s, animating: Boolean(m.on) });
    case "lift":
      return settle({ ...s, lifted: m.card || null });
    case "pick": {
      const need = Number(m.need) || 0;
      let picks = s.picks;
      if (picks.includes(m.card)) picks = picks.filter((c) => c !== m.card);
      else if (picks.length < need) picks = [...picks, m.card];
      return settle({ ...s, picks });
    }
    case "clear-picks":
      return { ...s, picks: [] };
    case "sending":
      return settle({ ...s, sending: Boolean(m.on), lifted: m.on ? null : s.lifted });
    case "sent":
      return settle({ ...s, awaitVersion: Math.max(s.awaitVersion, Number(m.version) || 0) });
    case "summary-closed":
      return { ...s, summaryClosedFor: typeof m.hand === "number" ? m.hand : s.summaryClosedFor };
    case "over-closed":
      return { ...s, overClosed: true };
    case "offer-answered":
      return { ...s, answered: s.table && s.table.offer ? s.table.offer.until : null };
    case "bubble-gone": {
      const bubble = s.bubbles[m.seat];
      if (!bubble || bubble.n !== m.n) return s;
      const bubbles = { ...s.bubbles };
      delete bubbles[m.seat];
      return { ...s, bubbles };
    }
    case "turn-announced":
      return { ...s, turnAnnounced: s.version };
    case "connection":
      return { ...s, connection: String(m.status) };
    case "undone":
      return { ...s, notice: { kind: "undo", version: s.version, count: Number(m.count) || 1 } };
    case "claimed":
      return { ...s, notice: { kind: "claim", version: s.version, seat: String(m.seat || "") } };
    case "claim-refused":
      return { ...s, notice: { kind: "claim-refused", version: s.version, text: String(m.reason || "") } };
    default:
      return s;
  }
}

/**
 * A full STATE: the table's part always; the game's part unless it is older than the one
 * held (or the same), except after a resync or a change of seat.
 * @param {State} s
 * @param {{[key: string]: any}} m
 * @returns {State}
 */
function takeState(s, m) {
  let next = s;
  if (m.kind !== undefined) next = { ...next, kind: m.kind };
  const seatChanged = m.you !== undefined && s.view !== null && m.you !== s.you;
  if (m.you !== undefined) next = { ...next, you: m.you };
  if (m.names) next = { ...next, names: { ...m.names } };
  if (typeof m.pace === "string") next = { ...next, pace: m.pace };
  next = takeTable(next, m.table, m.status);
  if (!m.view) return next;
  // ``resync``: the server never had our version (say, a database restored from a backup).
  if (s.view !== null && m.version <= s.version && !m.resync && !seatChanged) return next;
  const previous = s.version;
  /** @type {GameEvent[]} */
  const events = Array.isArray(m.events) ? m.events : [];
  const fresh = !previous || m.resync || seatChanged;
  let auto = fresh ? [] : s.auto;
  for (const event of events) if (fresh || event.version > previous) auto = noteEvent(auto, event);
  next = {
    ...next,
    version: m.version,
    view: m.view,
    finished: null,
    queue: [],
    generation: s.generation + 1,
    auto,
  };
  if (seatChanged) {
    // Nothing of the old seat stays: not its lifted card, its picks, nor its hint.
    next = { ...next, lifted: null, picks: [], hint: null, offerMade: null };
  }
  return showing(next, m.view);
}

/**
 * One event: queued for the page to animate. A gap in the versions asks for a full state.
 * @param {State} s
 * @param {{[key: string]: any}} m
 * @returns {State}
 */
function takeEvent(s, m) {
  const version = Number(m.version);
  if (!(version > s.version)) return s;
  if (version > s.version + 1) return { ...s, gaps: s.gaps + 1 };
  const kind = m.event && m.event.kind;
  if (kind === "undo") {
    // Taken back: nothing still queued is worth showing (it never happened now). The view
    // goes on screen at once, and a new generation stops an animation under way.
    const seat = m.event.seat || undefined;
    const count = Number(String(m.event.action || "").replace("undo ", "")) || 1;
    return settle(showing({
      ...s, version, view: m.view, queue: [], finished: null, generation: s.generation + 1,
      lifted: null, picks: [], notice: { kind: "undo", version, seat, count },
    }, m.view));
  }
  let next = {
    ...s,
    version,
    view: m.view,
    queue: [...s.queue, { event: m.event, view: m.view }],
  };
  if (m.table) next = takeTable(next, m.table, m.status, m.view);
  if (kind === "claim") next = { ...next, notice: { kind: "claim", version, seat: m.event.seat } };
  return next;
}

/**
 * What a STATE, an event or a ``table`` message says about the table.
 * @param {State} s
 * @param {TableDoc | null | undefined} table
 * @param {string | null | undefined} status
 * @param {View | null} [view]
 * @returns {State}
 */
function takeTable(s, table, status, view = null) {
  let next = s;
  if (status) next = { ...next, status };
  if (!table) return next;
  const before = s.table ? s.table.offer || null : null;
  const offer = table.offer || null;
  next = { ...next, table, next: table.next || next.next };
  if (offer && next.you && offer.seat === next.you && !(view && view.phase === "over")) {
    next = { ...next, offerMade: offer };
  } else if (before && !offer && next.offerMade && next.offerMade.seat === before.seat) {
    // The offer this person made ended: the page says how (declined, lapsed) from the change.
    next = { ...next, offerMade: null };
  }
  return next;
}

/**
 * Show the next queued event: its view, the trick it finished (until ``collected``) and the
 * cards a computer player chose for someone away.
 * @param {State} s
 * @returns {State}
 */
function step(s) {
  const [first, ...rest] = s.queue;
  if (!first) return s;
  const { event, view } = first;
  const finished = event && event.kind === "play" && event.trick ? event.trick : null;
  return showing({ ...s, queue: rest, finished, auto: noteEvent(s.auto, event) }, view);
}

/**
 * Put ``view`` on screen. The last card's view says the match is over; the status follows.
 * @param {State} s
 * @param {View} view
 * @returns {State}
 */
function showing(s, view) {
  const status = view && view.phase === "over" && s.status ? "over" : s.status;
  return { ...s, shown: view, status };
}

/**
 * The cards a computer player chose for someone away, after ``event`` (a deal starts anew).
 * @param {string[]} auto
 * @param {GameEvent | null | undefined} event
 * @returns {string[]}
 */
function noteEvent(auto, event) {
  if (!event) return auto;
  if (event.kind === "deal") return [];
  if (event.kind === "play" && event.auto && event.action && !auto.includes(event.action)) {
    return [...auto, event.action];
  }
  return auto;
}

/**
 * The choices that depend on the position: a lifted card that is no longer playable drops,
 * and picks last only while this person's exchange is on screen.
 * @param {State} s
 * @returns {State}
 */
function settle(s) {
  let next = s;
  const view = s.shown;
  const exchanging = view && view.phase === "exchange" && view.turn === (view.seat || "S");
  if (s.picks.length && !exchanging) next = { ...next, picks: [] };
  if (s.lifted && !legalNow(next).has(s.lifted)) next = { ...next, lifted: null };
  return next;
}

// ---------------------------------------------------------------- what changed, in words

/**
 * What the live region says when the seats change at a table of people: who sat down, left,
 * dropped or came back. The viewer's own seat is never news.
 * @param {SeatDoc[]} before
 * @param {SeatDoc[]} now
 * @param {Record<string, string>} seatWords
 * @returns {string[]}
 */
export function seatNews(before, now, seatWords) {
  const was = new Map(before.map((doc) => [doc.seat, doc]));
  /** @type {string[]} */
  const said = [];
  for (const doc of now) {
    const old = was.get(doc.seat);
    if (!old || doc.you) continue;
    if (doc.kind === "person" && (old.kind !== "person" || old.name !== doc.name)) {
      said.push(`${doc.name} sat down at ${seatWords[doc.seat]}.`);
    } else if (old.kind === "person" && doc.kind !== "person") {
      said.push(doc.kind === "bot"
        ? `${old.name}'s seat went to a computer player.`
        : `${old.name} left; the seat is open.`);
    } else if (doc.kind === "person") {
      if (doc.auto && !old.auto) said.push(`A computer player plays for ${doc.name}.`);
      else if (doc.away && !old.away) said.push(`${doc.name} dropped: reconnecting.`);
      else if (!doc.away && !doc.auto && (old.away || old.auto)) said.push(`${doc.name} is back.`);
    }
  }
  return said;
}

/**
 * The offer to concede this person made, if it just ended (declined, lapsed or the match
 * ended with it).
 * @param {State} before
 * @param {State} after
 * @returns {Offer | null}
 */
export function offerEnded(before, after) {
  const same = before.id === after.id && before.you === after.you;
  return before.offerMade && !after.offerMade && same ? before.offerMade : null;
}
