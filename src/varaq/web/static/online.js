// The parts of the table page that only a table of people has (a private table, a quick
// match): the waiting room before the start, who is here or reconnecting on each seat, the
// turn timer, the marks on cards a computer player chose for someone away, the partner's
// offer to concede, quick phrases, who is ready for the next hand, Play again and the host's
// seat controls.
//
// The server decides all of it and says so in ``TABLE`` (the socket's ``table`` messages,
// every event's ``table`` and every STATE's). This module keeps the newest TABLE, draws it,
// and sends the person's intentions through the page (``page.send``), so a refusal shows the
// server's own sentence. It never guesses a rule: Start is enabled by ``table.can_start``.

import { api, Refusal } from "./connection.js";
import { SEAT_WORDS } from "./cards.js";
import { closeDialog, openDialog } from "./dialogs.js";
import { announce, toast } from "./notices.js";
import { PLACES } from "./seats.js";
import { drawBadges } from "./table.js";

const $ = (selector) => document.querySelector(selector);

/** The server's quick phrases (src/varaq/service/online.py PHRASES), in menu order. */
export const PHRASES = {
  hello: "Hello!",
  gg: "Good game",
  nice: "Nice play",
  well_bid: "Well bid",
  sorry: "Sorry, partner",
  thanks: "Thanks",
  oops: "Oops",
  hurry: "Your turn",
};
const PEOPLE_KINDS = new Set(["private", "quick"]);
/** How long a phrase's bubble stays by its seat. */
const BUBBLE_MS = 4500;

const online = {
  /** The page's hooks: ``id()``, ``send(request)``, ``rerender()``, ``home()``,
   *  ``enter(id, state)``, ``shown()`` (the view on screen) and ``seating()``. */
  page: null,
  kind: null,
  status: null,
  you: null,
  /** The newest TABLE from the server. */
  table: null,
  /** Cards a computer player chose for an absent person, this hand. */
  auto: new Set(),
  /** The offer to concede this page answered or saw lapse (its ``until``), so it is not
   *  asked twice; and the one this person made and is waiting on. */
  answered: null,
  offerMade: null,
  /** The new table of "Play again", once someone made it. */
  next: null,
  /** The seats as last drawn, to announce who came, went or dropped. */
  before: null,
  ticker: null,
  bubbles: new Map(),
};

/** A table where people play together (presence, timers, offers, phrases). */
export function isPeopleTable() {
  return PEOPLE_KINDS.has(online.kind);
}

export function isWatching() {
  return isPeopleTable() && online.you === null;
}

function seatDoc(seat) {
  const seats = (online.table && online.table.seats) || [];
  return seats.find((s) => s.seat === seat) || null;
}

/** Who is host (the seat), if a person hosts this table. */
function hostSeat() {
  const seats = (online.table && online.table.seats) || [];
  const host = seats.find((s) => s.host);
  return host ? host.seat : null;
}

function amHost() {
  const mine = online.you && seatDoc(online.you);
  return Boolean(mine && mine.host);
}

/** Whole seconds until ``epochMs`` (never negative). */
function secondsUntil(epochMs) {
  return Math.max(0, Math.ceil((Number(epochMs) - Date.now()) / 1000));
}

/** "42 s", "1:05": a countdown as the seats and the summary write it. */
export function clock(seconds) {
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)}:${rest < 10 ? "0" : ""}${rest}`;
}

/** A name in a sentence: "you" for the viewer's own seat. */
function nameOf(seat) {
  const doc = seatDoc(seat);
  if (!doc) return SEAT_WORDS[seat] || seat;
  return doc.you ? "you" : doc.name;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A small robot (inline SVG): the mark of a computer player, drawn, not an emoji font. */
export function robot(label = "") {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "robot");
  if (label) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  const parts = [
    ["rect", { x: 3, y: 5, width: 10, height: 8, rx: 2 }],
    ["rect", { x: 7.25, y: 1.5, width: 1.5, height: 3.5 }],
    ["circle", { cx: 8, cy: 1.6, r: 1.3 }],
    ["circle", { cx: 6, cy: 8.6, r: 1.2, class: "eye" }],
    ["circle", { cx: 10, cy: 8.6, r: 1.2, class: "eye" }],
    ["rect", { x: 5.5, y: 11, width: 5, height: 0.9, class: "eye" }],
  ];
  for (const [tag, attrs] of parts) {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    svg.append(node);
  }
  return svg;
}

/** A stopwatch (inline SVG) for the turn timer: the ⏱ character is missing from many fonts. */
function stopwatch() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "stopwatch");
  svg.setAttribute("aria-hidden", "true");
  const face = document.createElementNS(ns, "circle");
  for (const [k, v] of Object.entries({ cx: 8, cy: 9, r: 5.6 })) face.setAttribute(k, String(v));
  const hands = document.createElementNS(ns, "path");
  hands.setAttribute("d", "M8 9V5.8M6.2 1.6h3.6M8 1.6v1.8");
  svg.append(face, hands);
  return svg;
}

// ---------------------------------------------------------------- what the server says

/**
 * Take what a STATE, an event or a ``table`` message says about the table (``kind``, ``you``
 * and ``status`` when given, and ``table``). Announces arrivals, departures and drops.
 */
export function updateOnline({ kind, you, status, table, view = null }) {
  if (kind !== undefined) online.kind = kind;
  if (you !== undefined) online.you = you;
  if (status && online.status === "seating" && status === "playing" && isPeopleTable()) {
    announce("The match begins.");
  }
  if (status) online.status = status;
  if (!table) return;
  const offerBefore = online.table ? online.table.offer : null;
  online.table = table;
  if (table.next) online.next = table.next;
  if (isPeopleTable()) {
    announceSeats(table.seats || []);
    // An offer that ends with the match (the partner agreed) needs no word about it.
    const over = status === "over" || (view && view.phase === "over");
    noticeOfferEnd(offerBefore, table.offer, over);
  }
}

/** Forget everything about the previous table (the page shows another one). */
export function resetOnline() {
  Object.assign(online, {
    kind: null, status: null, you: null, table: null, auto: new Set(), answered: null,
    offerMade: null, next: null, before: null,
  });
  for (const timer of online.bubbles.values()) clearTimeout(timer);
  online.bubbles.clear();
  for (const bubble of document.querySelectorAll(".seat-bubble")) bubble.remove();
  for (const id of ["offer-dialog", "seat-dialog"]) closeDialog($(`#${id}`));
}

/** Names from the seats (people's names, "You" for the viewer) for the page's seating. */
export function seatNames() {
  const seats = (online.table && online.table.seats) || [];
  return Object.fromEntries(seats.map((s) => [s.seat, s.name]));
}

function announceSeats(seats) {
  const before = online.before;
  online.before = new Map(seats.map((s) => [s.seat, { ...s }]));
  if (!before) return;
  for (const now of seats) {
    const was = before.get(now.seat);
    if (!was || now.you) continue;
    if (now.kind === "person" && (was.kind !== "person" || was.name !== now.name)) {
      announce(`${now.name} sat down at ${SEAT_WORDS[now.seat]}.`);
    } else if (was.kind === "person" && now.kind !== "person") {
      announce(now.kind === "bot"
        ? `${was.name}'s seat went to a computer player.`
        : `${was.name} left; the seat is open.`);
    } else if (now.kind === "person") {
      if (now.auto && !was.auto) announce(`A computer player plays for ${now.name}.`);
      else if (now.away && !was.away) announce(`${now.name} dropped: reconnecting.`);
      else if (!now.away && !now.auto && (was.away || was.auto)) {
        announce(`${now.name} is back.`);
      }
    }
  }
}

/** Follow a hand's events: remember the cards a computer player chose for someone away. */
export function noteEvent(event) {
  if (!event) return;
  if (event.kind === "deal") online.auto.clear();
  if (event.kind === "play" && event.auto && event.action) online.auto.add(event.action);
}

/** A full state's recent events, in order, for the marks (the older ones are gone). */
export function noteEvents(events) {
  online.auto.clear();
  for (const event of events || []) noteEvent(event);
}

/** The live region's words for an event a computer player chose for an absent person. */
export function autoWords(event, words) {
  if (!event || !event.auto) return words;
  const how = event.kind === "play" ? "Played" : "Chosen";
  return `${words} (${how} for ${nameOf(event.seat)} by a computer player.)`;
}

// ---------------------------------------------------------------- drawing

/** Draw everything of a table of people for ``view`` (or hide it all at a solo table). */
export function drawOnline(view, seating) {
  const people = isPeopleTable();
  // The last card's event says the match is over; the status follows it.
  if (view && view.phase === "over" && online.status) online.status = "over";
  const tableBox = $("#table");
  tableBox.classList.toggle("people", people);
  tableBox.classList.toggle("watching", isWatching());
  const seatingNow = people && online.status === "seating";
  tableBox.classList.toggle("seating", seatingNow);
  $("#waiting").hidden = !seatingNow;
  $("#phrase-button").hidden = !people || isWatching();
  // A watcher only reads: nothing that acts (the daily's own page hides Hint itself).
  $("#concede-button").hidden = isWatching();
  $(".speed").hidden = isWatching();
  if (isWatching()) $("#hint-button").hidden = true;
  if (!people) {
    $("#phrase-menu").classList.remove("open");
    for (const line of document.querySelectorAll(".seat-line")) line.remove();
    $("#summary-ready").hidden = true;
    $("#next-hand").disabled = false;
    $("#next-hand").textContent = "Next hand";
    $("#over-again").hidden = true;
    $("#over-again-note").hidden = true;
    $("#over-home").hidden = true;
    $("#watch-note").hidden = true;
    return;
  }
  // Not for people: single-player choices, and for a watcher anything that acts.
  $("#over-new-game").hidden = true;
  $("#over-home").hidden = false;
  $("#watch-note").hidden = !isWatching();
  if (seatingNow) drawWaiting(view, seating);
  if (view) {
    drawSeatLines(view, seating);
    drawReady(view);
    drawOverAgain(view);
    drawOffer(view, seating);
  }
  tick();
  if (!online.ticker) online.ticker = setInterval(tick, 500);
}

/** The seats of the waiting room around a little felt, from the viewer's chair. */
function drawWaiting(view, seating) {
  const table = online.table || {};
  const seats = table.seats || [];
  $("#waiting-title").textContent = online.kind === "quick" ? "Quick match" : "Private table";
  const code = table.code || "";
  $("#waiting-code-box").hidden = !code;
  $("#waiting-code").textContent = code;
  const link = code ? `${location.origin}/join/${code}` : "";
  $("#waiting-link").value = link;
  if (view) drawBadges($("#waiting-badges"), view.badges);
  for (const place of PLACES) {
    const seat = seating.seatAt(place);
    const doc = seats.find((s) => s.seat === seat) || { seat, kind: "open", name: "" };
    const box = $(`#waiting-${place}`);
    box.dataset.seat = seat;
    box.dataset.kind = doc.kind;
    const relation = place === "bottom" ? (online.you ? "You" : SEAT_WORDS[seat])
      : place === "top" ? "Partner" : "Opponent";
    const name = doc.kind === "person" ? doc.name : doc.kind === "bot" ? "Computer player"
      : "Open seat";
    const roles = [SEAT_WORDS[seat]];
    if (relation !== "You" && relation !== SEAT_WORDS[seat]) roles.push(relation);
    if (doc.host) roles.push("Host");
    if (doc.kind === "person" && doc.present === false && !doc.you) roles.push("away");
    box.querySelector(".w-name").textContent = name;
    box.querySelector(".w-role").textContent = roles.join(" · ");
    box.setAttribute("aria-label", `${SEAT_WORDS[seat]}: ${name}${doc.host ? ", host" : ""}`);
  }
  const people = seats.filter((s) => s.kind === "person").length;
  const need = table.fill_bots ? Math.max(0, 2 - people) : Math.max(0, 4 - people);
  const host = hostSeat();
  const hostName = host ? nameOf(host) : "the host";
  let why;
  if (!table.can_start) {
    why = need ? `Waiting for ${need === 1 ? "1 more person" : `${need} more people`}`
      : "Waiting for the table";
  } else if (amHost()) {
    why = people < 4 ? "Computer players take the empty seats" : "Everyone is here";
  } else {
    const bots = people < 4 ? " (computer players take the empty seats)" : "";
    why = `Waiting for ${hostName} to start${bots}`;
  }
  $("#waiting-why").textContent = `${why}.`;
  $("#waiting-count").textContent = `${people} of 4 seated`;
  const start = $("#start-button");
  start.hidden = !amHost();
  start.disabled = !table.can_start;
  $("#leave-button").hidden = amHost() || !online.you;
  document.title = `Varaq · ${online.kind === "quick" ? "Quick match" : "Private table"} · ${
    people} of 4`;
}

/** Each seat's line under its plate: here, reconnecting with its countdown, a computer
 *  player standing in, the turn timer; and the host's button for a seat that can change. */
function drawSeatLines(view, seating) {
  const table = online.table || {};
  const felt = $("#felt");
  const deadline = table.turn_deadline;
  const playing = online.status === "playing";
  for (const place of PLACES) {
    const seat = seating.seatAt(place);
    const box = felt.querySelector(`#seat-${place}`);
    if (!box) continue;
    const plate = box.querySelector(".seat-plate");
    let line = plate.querySelector(".seat-line");
    if (!line) {
      line = el("span", "seat-line");
      plate.append(line);
    }
    const doc = seatDoc(seat) || { kind: "open" };
    const parts = [];
    let state = "here";
    if (playing && deadline && view.turn === seat && doc.kind === "person" && !doc.auto) {
      state = "timer";
      const count = el("span", "countdown");
      count.dataset.until = String(deadline);
      parts.push(stopwatch(), el("span", "visually-hidden", "Turn timer: "), count);
    } else if (doc.kind === "person" && doc.away) {
      state = "away";
      const count = el("span", "countdown");
      count.dataset.until = String(doc.takeover || 0);
      parts.push(el("span", "line-word", "reconnecting "), count);
    } else if (doc.kind === "person" && doc.auto) {
      state = "auto";
      parts.push(robot(), el("span", "line-word", "computer playing"));
    } else if (doc.kind === "bot") {
      state = "bot";
      parts.push(robot(), el("span", "line-word", "computer"));
    } else if (doc.kind === "open") {
      state = "open";
      parts.push(robot(), el("span", "line-word", "open seat"));
    } else if (!doc.you) {
      parts.push(el("span", "line-dot"), el("span", "line-word", doc.present ? "here" : "away"));
      if (!doc.present) state = "gone";
    }
    const key = `${state}:${state === "timer" ? deadline : doc.takeover || ""}:${amHost()}`;
    if (line.dataset.key !== key) {
      line.dataset.key = key;
      line.dataset.state = state;
      line.replaceChildren(...parts);
      if (amHost() && playing && !doc.you
          && (doc.kind === "open" || (doc.kind === "person" && (doc.away || doc.auto
            || doc.present === false)))) {
        const button = el("button", "seat-options", "Seat…");
        button.type = "button";
        button.setAttribute("aria-label", `Seat options: ${SEAT_WORDS[seat]}`);
        button.addEventListener("click", () => openSeatDialog(seat));
        line.append(button);
      }
    }
    box.classList.toggle("away", state === "away" || state === "auto");
  }
}

/** The hand summary at a table of people: who is ready, and when the next hand is dealt. */
function drawReady(view) {
  const table = online.table || {};
  const line = $("#summary-ready");
  const after = view.phase === "deal" && view.history.length > 0 && online.status === "playing";
  line.hidden = !after;
  const next = $("#next-hand");
  if (!after) {
    next.disabled = false;
    next.textContent = "Next hand";
    return;
  }
  const ready = new Set(table.ready || []);
  const people = (table.seats || []).filter((s) => s.kind === "person" && s.present);
  const waiting = people.filter((s) => !ready.has(s.seat)).map((s) => (s.you ? "you" : s.name));
  const mine = online.you && ready.has(online.you);
  next.disabled = Boolean(mine) || isWatching();
  next.textContent = mine ? "Ready" : "Next hand";
  const words = [];
  if (ready.size) {
    const who = [...ready].map((s) => (s === online.you ? "you" : nameOf(s)));
    words.push(`Ready: ${who.join(", ")}.`);
  }
  if (waiting.length) words.push(`Waiting for ${waiting.join(", ")}.`);
  const when = el("span", "countdown");
  when.dataset.until = String(table.next_hand_at || 0);
  line.replaceChildren(words.join(" "), " ");
  if (table.next_hand_at) line.append("The next hand is dealt in ", when, ".");
  // With the summary closed, the status line under the table says when.
  if (table.next_hand_at && !$("#summary-dialog").open && !$("#status .next-wait")) {
    const soon = el("span", "countdown");
    soon.dataset.until = String(table.next_hand_at);
    const wait = el("span", "next-wait");
    wait.append("Next hand in ", soon, mine ? " · you are ready" : "");
    $("#status").append(wait);
  }
}

/** The end of a match of people: Play again (the same seats, new deals) instead of New game. */
function drawOverAgain(view) {
  const over = view.phase === "over";
  const button = $("#over-again");
  button.hidden = !over || isWatching();
  const note = $("#over-again-note");
  note.hidden = !(over && online.next);
  note.textContent = online.next
    ? "A new match is ready at this table: the same seats, new deals." : "";
  button.textContent = online.next ? "Go to the new match" : "Play again";
}

function partnerOf(seat) {
  return { N: "S", S: "N", E: "W", W: "E" }[seat];
}

/** The partner's offer to concede, as a question to this person; or this person's own
 *  offer, waiting, in the status line. */
function drawOffer(view, seating) {
  const offer = (online.table || {}).offer;
  const dialog = $("#offer-dialog");
  const forMe = offer && online.you && offer.seat === partnerOf(online.you)
    && view.phase !== "over";
  if (forMe && online.answered !== offer.until) {
    $("#offer-text").textContent = `${nameOf(offer.seat)} offers to give up the match: ${
      seating.sideName(seating.theirSide)} would win at once. Concede too, or decline and play on.`;
    if (!dialog.open) {
      openDialog(dialog);
      $("#offer-decline").focus();
      announce("Your partner offers to concede the match.");
    }
  } else {
    closeDialog(dialog);
  }
  const mine = offer && online.you && offer.seat === online.you && view.phase !== "over";
  const status = $("#status");
  let waiting = status.querySelector(".offer-wait");
  if (mine && !waiting) {
    waiting = el("span", "offer-wait", `Offered to your partner: waiting for ${
      nameOf(partnerOf(online.you))}.`);
    status.append(waiting);
  } else if (!mine && waiting) {
    waiting.remove();
  }
  if (mine) online.offerMade = offer;
}

/** Tell the offering person how it ended: the partner declined, or the offer lapsed. */
function noticeOfferEnd(before, now, over) {
  const made = online.offerMade;
  if (!before || now || !made || made.seat !== before.seat) return;
  online.offerMade = null;
  const shown = online.page && online.page.shown();
  if (over || (shown && shown.phase === "over")) return;
  if (Date.now() < Number(made.until)) {
    toast(`${nameOf(partnerOf(made.seat))} declined: play on.`);
  } else {
    toast("Your offer to concede lapsed: play on.");
  }
}

/** Every countdown on the page, once or twice a second (text only: not a live region). */
function tick() {
  const counting = "#table .countdown[data-until], #summary-ready .countdown";
  for (const node of document.querySelectorAll(counting)) {
    node.textContent = clock(secondsUntil(node.dataset.until));
  }
}

// ---------------------------------------------------------------- phrases

/** A phrase from the table: a bubble by the speaker's seat for a moment, and the live region. */
export function showPhrase(message, seating) {
  const text = String(message.text || PHRASES[message.phrase] || "");
  if (!text || !message.seat) return;
  const name = seating.name(message.seat);
  announce(`${name}: ${text}`);
  const place = seating.placeOf(message.seat);
  const box = $(`#seat-${place}`);
  if (!box) return;
  let bubble = box.querySelector(".seat-bubble");
  if (!bubble) {
    bubble = el("p", "seat-bubble");
    bubble.setAttribute("aria-hidden", "true"); // the live region says it
    box.append(bubble);
  }
  bubble.textContent = text;
  bubble.classList.remove("pop");
  void bubble.offsetWidth; // restart the animation for a second phrase
  bubble.classList.add("pop");
  clearTimeout(online.bubbles.get(place));
  online.bubbles.set(place, setTimeout(() => bubble.remove(), BUBBLE_MS));
}

function togglePhrases(open) {
  const button = $("#phrase-button");
  const next = open === undefined ? button.getAttribute("aria-expanded") !== "true" : open;
  button.setAttribute("aria-expanded", String(next));
  $("#phrase-menu").classList.toggle("open", next);
  if (next) $("#phrase-menu button").focus();
}

async function sayPhrase(key) {
  togglePhrases(false);
  $("#phrase-button").focus();
  try {
    await api.post(`/api/games/${encodeURIComponent(online.page.id())}/phrase`, { phrase: key });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    toast(error.message);
  }
}

// ---------------------------------------------------------------- requests

function path(what) {
  return `/api/games/${encodeURIComponent(online.page.id())}/${what}`;
}

async function post(what, body = {}) {
  try {
    return await api.post(path(what), body);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    toast(error.message);
    return null;
  }
}

async function startMatch() {
  $("#start-button").disabled = true;
  await online.page.send(() => api.post(path("start")));
}

async function leaveTable() {
  const left = await post("leave");
  if (left) online.page.home();
}

async function copyLink() {
  const input = $("#waiting-link");
  const link = input.value;
  let copied = false;
  try {
    await navigator.clipboard.writeText(link);
    copied = true;
  } catch {
    // No clipboard here (permissions, an old browser): select the link to copy by hand.
    input.focus();
    input.select();
  }
  const status = $("#copy-status");
  status.textContent = copied ? "Link copied." : "Select the link above and copy it.";
  setTimeout(() => { status.textContent = ""; }, 4000);
}

/** The partner's offer: concede too (the match ends) or decline (play on). */
async function answerOffer(agree) {
  const offer = (online.table || {}).offer;
  online.answered = offer ? offer.until : null;
  closeDialog($("#offer-dialog"));
  if (agree) await online.page.send(() => api.concede(online.page.id()));
  else if (await post("decline")) announce("You declined: play on.");
}

/** The host's choices for an open or absent seat. */
function openSeatDialog(seat) {
  const doc = seatDoc(seat) || { kind: "open" };
  const dialog = $("#seat-dialog");
  dialog.dataset.seat = seat;
  $("#seat-title").textContent = `${SEAT_WORDS[seat]}'s seat`;
  const code = (online.table || {}).code;
  $("#seat-text").textContent = doc.kind === "open"
    ? "This seat is open: a computer player plays it until someone joins with the table's code."
    : `${doc.name} is away. A computer player can take the seat for good, or you can leave `
      + `it open for someone new${code ? ` (code ${code})` : ""}; a computer player plays it `
      + "meanwhile.";
  $("#seat-open").hidden = doc.kind === "open";
  openDialog(dialog);
  $("#seat-bot").focus();
}

async function setSeat(to) {
  const dialog = $("#seat-dialog");
  const seat = dialog.dataset.seat;
  closeDialog(dialog);
  await online.page.send(() => api.post(path("seat"), { seat, to }));
}

/** Play again: the new table's id from the server (asked twice, the same one). */
async function playAgain() {
  if (online.next) {
    online.page.enter(online.next);
    return;
  }
  $("#over-again").disabled = true;
  try {
    const made = await post("again");
    if (made) online.page.enter(made.id, made.state);
  } finally {
    $("#over-again").disabled = false;
  }
}

/** Someone at the table pressed Play again: offer to follow them. */
export function againReady(id) {
  online.next = id;
  announce("A new match is ready at this table: Go to the new match.");
  const shown = online.page.shown();
  if (shown) drawOverAgain(shown);
  const dialog = $("#over-dialog");
  if (!dialog.open && shown && shown.phase === "over") {
    openDialog(dialog);
  }
}

/** Whether conceding now needs the partner's yes (a person who is here, not a stand-in). */
export function concedeNeedsPartner(seating) {
  if (!isPeopleTable() || !online.you) return false;
  const mate = seatDoc(seating.seatAt("top"));
  return Boolean(mate && mate.kind === "person" && mate.present && !mate.auto);
}

/** The answer to Concede: at a table of people it may be an offer to the partner. */
export function conceded(state) {
  if (state && state.concede === "offered") {
    toast("Offered to your partner.");
    announce("Offered to your partner: they must agree.");
  }
}

export function wireOnline(page) {
  online.page = page;
  $("#start-button").addEventListener("click", startMatch);
  $("#leave-button").addEventListener("click", leaveTable);
  $("#copy-link").addEventListener("click", copyLink);
  $("#offer-concede").addEventListener("click", () => answerOffer(true));
  $("#offer-decline").addEventListener("click", () => answerOffer(false));
  $("#offer-dialog").addEventListener("cancel", () => {
    const offer = (online.table || {}).offer;
    online.answered = offer ? offer.until : null;
  });
  $("#seat-bot").addEventListener("click", () => setSeat("bot"));
  $("#seat-open").addEventListener("click", () => setSeat("open"));
  $("#seat-cancel").addEventListener("click", () => closeDialog($("#seat-dialog")));
  $("#over-again").addEventListener("click", playAgain);
  $("#phrase-button").addEventListener("click", () => togglePhrases());
  const menu = $("#phrase-menu");
  menu.replaceChildren(...Object.entries(PHRASES).map(([key, text]) => {
    const button = el("button", "secondary", text);
    button.type = "button";
    button.setAttribute("role", "menuitem");
    button.addEventListener("click", () => sayPhrase(key));
    return button;
  }));
  menu.addEventListener("keydown", (event) => {
    const items = [...menu.querySelectorAll("button")];
    const at = items.indexOf(document.activeElement);
    if (event.key === "Escape") {
      event.stopPropagation();
      togglePhrases(false);
      $("#phrase-button").focus();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      items[(at + step + items.length) % items.length].focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (!event.target.closest("#phrase-button, #phrase-menu")) togglePhrases(false);
  });
}

/** Mark the cards on the table a computer player chose for someone away (a small robot). */
export function markAuto(felt) {
  for (const slot of felt.querySelectorAll(".trick-slot")) {
    const card = slot.dataset.card;
    const auto = Boolean(card) && online.auto.has(card);
    const mark = slot.querySelector(".auto-mark");
    if (auto && !mark) {
      const badge = el("span", "auto-mark");
      badge.append(robot(`played for ${nameOf(slot.dataset.seat)} by a computer player`));
      slot.append(badge);
    } else if (!auto && mark) {
      mark.remove();
    }
  }
}

/** Whether ``card`` (in the hand being played) was chosen by a computer player for someone. */
export function playedByComputer(card) {
  return online.auto.has(card);
}

/** The Last trick dialog: say which of its cards a computer player chose for someone away. */
export function markLastTrick() {
  for (const figure of document.querySelectorAll("#last-trick-body figure")) {
    const card = figure.querySelector(".card");
    const caption = figure.querySelector("figcaption");
    if (!card || !caption || !online.auto.has(card.dataset.card)) continue;
    const note = el("small", "auto-note");
    note.append(robot(), " played by a computer player");
    caption.append(document.createElement("br"), note);
  }
}
