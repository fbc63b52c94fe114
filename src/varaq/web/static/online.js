// @ts-check
// The parts of the table page that only a table of people has (a private table, a quick
// match): the waiting room before the start, who is here or reconnecting on each seat, the
// turn timer, the marks on cards a computer player chose for someone away, the partner's
// offer to concede, quick phrases, who is ready for the next hand, Play again and the host's
// seat controls.
//
// The server decides all of it and says so in ``TABLE`` (the socket's ``table`` messages,
// every event's ``table`` and every STATE's), which the page's store keeps (store.js). Every
// drawing function here reads only that state; what the person does goes to the page
// (``page.send``, so a refusal shows the server's own sentence, or ``page.dispatch``). It
// never guesses a rule: Start is enabled by ``table.can_start``.

import { api, Refusal, request } from "./connection.js";
import { SEAT_WORDS } from "./cards.js";
import { closeDialog, openDialog } from "./dialogs.js";
import { callOnTurn, drawInviteBox } from "./friends.js";
import { $, button, dialog, el, input } from "./dom.js";
import { announce, toast } from "./notices.js";
import { PLACES } from "./seats.js";
import {
  PHRASES, isPeopleTable, isWatching, matchOver, offerEnded, seatDoc, seatNews,
} from "./store.js";
import { drawBadges } from "./table.js";

/** @typedef {import("./store.js").State} State */
/** @typedef {import("./store.js").View} View */
/** @typedef {import("./store.js").GameEvent} GameEvent */
/** @typedef {import("./store.js").Offer} Offer */
/** @typedef {ReturnType<typeof import("./seats.js").seating>} Seating */

/**
 * What this module may ask of the page.
 * @typedef {{
 *   state: () => State,
 *   dispatch: (message: {type: string, [key: string]: any}) => void,
 *   send: (request: () => Promise<any>) => Promise<any>,
 *   home: () => void,
 *   enter: (id: string, state?: any) => void,
 * }} Page
 */

/** How long a phrase's bubble stays by its seat. */
const BUBBLE_MS = 4500;

/** @type {Page | null} */
let page = null;
/** The countdowns' clock: it only rewrites their text, from the epoch times in the page. */
/** @type {ReturnType<typeof setInterval> | null} */
let ticker = null;

/** @returns {Page} */
function thePage() {
  if (!page) throw new Error("online.js: wireOnline() was not called");
  return page;
}

/** Who is host (the seat), if a person hosts this table. @param {State} s */
function hostSeat(s) {
  const seats = (s.table && s.table.seats) || [];
  const host = seats.find((doc) => doc.host);
  return host ? host.seat : null;
}

/** @param {State} s */
function amHost(s) {
  const mine = s.you ? seatDoc(s, s.you) : null;
  return Boolean(mine && mine.host);
}

/** Whole seconds until ``epochMs`` (never negative). @param {number | string | undefined} epochMs */
function secondsUntil(epochMs) {
  return Math.max(0, Math.ceil((Number(epochMs) - Date.now()) / 1000));
}

/** "42 s", "1:05": a countdown as the seats and the summary write it. @param {number} seconds */
export function clock(seconds) {
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)}:${rest < 10 ? "0" : ""}${rest}`;
}

/** A name in a sentence: "you" for the viewer's own seat. @param {State} s @param {string} seat */
function nameOf(s, seat) {
  const doc = seatDoc(s, seat);
  if (!doc) return SEAT_WORDS[/** @type {keyof typeof SEAT_WORDS} */ (seat)] || seat;
  return doc.you ? "you" : doc.name;
}

/** @param {string} seat @returns {string} */
function seatWord(seat) {
  return SEAT_WORDS[/** @type {keyof typeof SEAT_WORDS} */ (seat)] || seat;
}

/** @param {string} seat @returns {string} */
function partnerOf(seat) {
  return /** @type {Record<string, string>} */ ({ N: "S", S: "N", E: "W", W: "E" })[seat];
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
  /** @type {[string, Record<string, number | string>][]} */
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

// ---------------------------------------------------------------- what changed, said

/**
 * Say what a change of the store means at a table of people: the match began, someone sat
 * down, left, dropped or came back, an offer this person made ended, a phrase was said, a
 * new match is ready. Called by the page after each server message.
 * @param {State} before
 * @param {State} after
 * @param {{type: string, [key: string]: any}} message
 * @param {Seating} seating
 */
export function reactOnline(before, after, message, seating) {
  if (message.type === "phrase" && after.phrases !== before.phrases) {
    const bubble = after.bubbles[message.seat];
    announce(`${seating.name(message.seat)}: ${bubble.text}`);
    setTimeout(() => thePage().dispatch({ type: "bubble-gone", seat: message.seat, n: bubble.n }),
      BUBBLE_MS);
    drawBubbles(after, seating);
    return;
  }
  if (message.type === "again" && after.next) {
    announce("A new match is ready at this table: Go to the new match.");
    if (after.shown) drawOverAgain(after, after.shown);
    if (!dialog("#over-dialog").open && after.shown && after.shown.phase === "over") {
      openDialog(dialog("#over-dialog"));
    }
    return;
  }
  if (message.type === "concede" && message.concede === "offered") {
    toast("Offered to your partner.");
    announce("Offered to your partner: they must agree.");
    return;
  }
  if (!isPeopleTable(after) || before.id !== after.id) return;
  if (before.status === "seating" && after.status === "playing") announce("The match begins.");
  if (before.table && after.table && before.table !== after.table) {
    for (const words of seatNews(before.table.seats || [], after.table.seats || [], SEAT_WORDS)) {
      announce(words);
    }
  }
  const ended = offerEnded(before, after);
  // An offer that ends with the match (the partner agreed) needs no word about it.
  if (ended && !matchOver(after)) {
    if (Date.now() < Number(ended.until)) {
      toast(`${nameOf(after, partnerOf(ended.seat))} declined: play on.`);
    } else {
      toast("Your offer to concede lapsed: play on.");
    }
  }
}

/** Forget the previous table's bubbles and dialogs (the page shows another one). */
export function resetOnline() {
  for (const bubble of document.querySelectorAll(".seat-bubble")) bubble.remove();
  for (const id of ["offer-dialog", "seat-dialog"]) closeDialog(dialog(`#${id}`));
}

/**
 * The live region's words for an event a computer player chose for an absent person.
 * @param {State} s
 * @param {GameEvent | null | undefined} event
 * @param {string} words
 */
export function autoWords(s, event, words) {
  if (!event || !event.auto) return words;
  const how = event.kind === "play" ? "Played" : "Chosen";
  return `${words} (${how} for ${nameOf(s, event.seat || "")} by a computer player.)`;
}

// ---------------------------------------------------------------- drawing

/**
 * Draw everything of a table of people from the state (or hide it all at a solo table).
 * @param {State} s
 * @param {Seating} seating
 */
export function drawOnline(s, seating) {
  callOnTurn(s);
  drawInviteBox(s);
  const view = s.shown;
  const people = isPeopleTable(s);
  const watching = isWatching(s);
  const tableBox = $("#table");
  tableBox.classList.toggle("people", people);
  tableBox.classList.toggle("watching", watching);
  const seatingNow = people && s.status === "seating";
  tableBox.classList.toggle("seating", seatingNow);
  $("#waiting").hidden = !seatingNow;
  $("#phrase-button").hidden = !people || watching;
  // A watcher only reads: nothing that acts (the daily's own page hides Hint itself).
  $("#concede-button").hidden = watching;
  $(".speed").hidden = watching;
  if (watching) $("#hint-button").hidden = true;
  if (!people) {
    $("#phrase-menu").classList.remove("open");
    for (const line of document.querySelectorAll(".seat-line")) line.remove();
    $("#summary-ready").hidden = true;
    button("#next-hand").disabled = false;
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
  $("#watch-note").hidden = !watching;
  if (seatingNow) drawWaiting(s, view, seating);
  if (view) {
    drawSeatLines(s, view, seating);
    drawReady(s, view);
    drawOverAgain(s, view);
    drawOffer(s, view, seating);
  }
  drawBubbles(s, seating);
  sayWaited(s);
  tick();
  if (!ticker) ticker = setInterval(tick, 500);
}

/** Tables whose "Seated after…" was said on this page already (once per table). */
const waitsSaid = new Set();

/**
 * At a quick-match table, once: how long this person waited in the queue (the server keeps
 * each person's own wait and sends it to them only).
 * @param {State} s
 */
function sayWaited(s) {
  const waited = s.table && s.table.waited;
  if (s.kind !== "quick" || typeof waited !== "number" || !s.id || waitsSaid.has(s.id)) return;
  waitsSaid.add(s.id);
  const seconds = Math.round(waited);
  const rest = seconds % 60;
  const words = seconds < 60 ? `${seconds} s`
    : `${Math.floor(seconds / 60)} min${rest ? ` ${rest} s` : ""}`;
  toast(`Seated after ${words} in the queue.`);
}

/**
 * Who can find a private table: the host chooses before the start (public tables are listed
 * under Live tables on the home page), beside the link, so the room grows no taller; the
 * title says it to everyone ("Public table").
 * @param {State} s
 */
function drawListing(s) {
  const table = s.table || {};
  const select = /** @type {HTMLSelectElement} */ ($("#listing-select"));
  select.hidden = !(amHost(s) && s.kind === "private");
  if (document.activeElement !== select) select.value = table.public ? "public" : "private";
}

/** The waiting room's title: what kind of table, and whether it is listed. @param {State} s */
function roomTitle(s) {
  if (s.kind === "quick") return "Quick match";
  return s.table && s.table.public ? "Public table" : "Private table";
}

/**
 * The seats of the waiting room around a little felt, from the viewer's chair.
 * @param {State} s
 * @param {View | null} view
 * @param {Seating} seating
 */
function drawWaiting(s, view, seating) {
  const table = s.table || {};
  const seats = table.seats || [];
  $("#waiting-title").textContent = roomTitle(s);
  const code = table.code || "";
  $("#waiting-code-box").hidden = !code;
  $("#waiting-code").textContent = code;
  const link = code ? `${location.origin}/join/${code}` : "";
  input("#waiting-link").value = link;
  drawListing(s);
  if (view) drawBadges($("#waiting-badges"), view.badges);
  for (const place of PLACES) {
    const seat = seating.seatAt(place);
    const doc = seats.find((d) => d.seat === seat) || { seat, kind: "open", name: "" };
    const box = $(`#waiting-${place}`);
    box.dataset.seat = seat;
    box.dataset.kind = doc.kind;
    const relation = place === "bottom" ? (s.you ? "You" : seatWord(seat))
      : place === "top" ? "Partner" : "Opponent";
    const name = doc.kind === "person" ? doc.name : doc.kind === "bot" ? "Computer player"
      : "Open seat";
    const roles = [seatWord(seat)];
    if (relation !== "You" && relation !== seatWord(seat)) roles.push(relation);
    if (doc.host) roles.push("Host");
    if (doc.kind === "person" && doc.present === false && !doc.you) roles.push("away");
    $(`#waiting-${place} .w-name`).textContent = name;
    $(`#waiting-${place} .w-role`).textContent = roles.join(" · ");
    box.setAttribute("aria-label", `${seatWord(seat)}: ${name}${doc.host ? ", host" : ""}`);
  }
  const people = seats.filter((d) => d.kind === "person").length;
  const need = table.fill_bots ? Math.max(0, 2 - people) : Math.max(0, 4 - people);
  const host = hostSeat(s);
  const hostName = host ? nameOf(s, host) : "the host";
  let why;
  if (!table.can_start) {
    why = need ? `Waiting for ${need === 1 ? "1 more person" : `${need} more people`}`
      : "Waiting for the table";
  } else if (amHost(s)) {
    why = people < 4 ? "Computer players take the empty seats" : "Everyone is here";
  } else {
    const bots = people < 4 ? " (computer players take the empty seats)" : "";
    why = `Waiting for ${hostName} to start${bots}`;
  }
  $("#waiting-why").textContent = `${why}.`;
  $("#waiting-count").textContent = `${people} of 4 seated`;
  const start = button("#start-button");
  start.hidden = !amHost(s);
  start.disabled = !table.can_start;
  $("#leave-button").hidden = amHost(s) || !s.you;
  document.title = `Varaq · ${roomTitle(s)} · ${people} of 4`;
}

/**
 * Each seat's line under its plate: here, reconnecting with its countdown, a computer
 * player standing in, the turn timer; and the host's button for a seat that can change.
 * @param {State} s
 * @param {View} view
 * @param {Seating} seating
 */
function drawSeatLines(s, view, seating) {
  const table = s.table || {};
  const felt = $("#felt");
  const deadline = table.turn_deadline;
  const playing = s.status === "playing";
  const host = amHost(s);
  for (const place of PLACES) {
    const seat = seating.seatAt(place);
    const box = felt.querySelector(`#seat-${place}`);
    const plate = box && box.querySelector(".seat-plate");
    if (!box || !plate) continue;
    let line = /** @type {HTMLElement | null} */ (plate.querySelector(".seat-line"));
    if (!line) {
      line = el("span", "seat-line");
      plate.append(line);
    }
    const doc = seatDoc(s, seat) || { seat, kind: "open", name: "" };
    /** @type {(Node | string)[]} */
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
    const key = `${state}:${state === "timer" ? deadline : doc.takeover || ""}:${host}`;
    if (line.dataset.key !== key) {
      line.dataset.key = key;
      line.dataset.state = state;
      line.replaceChildren(...parts);
      if (host && playing && !doc.you
          && (doc.kind === "open" || (doc.kind === "person" && (doc.away || doc.auto
            || doc.present === false)))) {
        const options = el("button", "seat-options", "Seat…");
        options.type = "button";
        options.setAttribute("aria-label", `Seat options: ${seatWord(seat)}`);
        options.addEventListener("click", () => openSeatDialog(seat));
        line.append(options);
      }
    }
    box.classList.toggle("away", state === "away" || state === "auto");
  }
}

/**
 * The hand summary at a table of people: who is ready, and when the next hand is dealt.
 * @param {State} s
 * @param {View} view
 */
function drawReady(s, view) {
  const table = s.table || {};
  const line = $("#summary-ready");
  const after = view.phase === "deal" && view.history.length > 0 && s.status === "playing";
  line.hidden = !after;
  const next = button("#next-hand");
  if (!after) {
    next.disabled = false;
    next.textContent = "Next hand";
    return;
  }
  const ready = new Set(table.ready || []);
  const people = (table.seats || []).filter((d) => d.kind === "person" && d.present);
  const waiting = people.filter((d) => !ready.has(d.seat)).map((d) => (d.you ? "you" : d.name));
  const mine = s.you && ready.has(s.you);
  next.disabled = Boolean(mine) || isWatching(s);
  next.textContent = mine ? "Ready" : "Next hand";
  const words = [];
  if (ready.size) {
    const who = [...ready].map((seat) => (seat === s.you ? "you" : nameOf(s, seat)));
    words.push(`Ready: ${who.join(", ")}.`);
  }
  if (waiting.length) words.push(`Waiting for ${waiting.join(", ")}.`);
  const when = el("span", "countdown");
  when.dataset.until = String(table.next_hand_at || 0);
  line.replaceChildren(words.join(" "), " ");
  if (table.next_hand_at) line.append("The next hand is dealt in ", when, ".");
  // With the summary closed, the status line under the table says when.
  if (table.next_hand_at && !dialog("#summary-dialog").open
      && !document.querySelector("#status .next-wait")) {
    const soon = el("span", "countdown");
    soon.dataset.until = String(table.next_hand_at);
    const wait = el("span", "next-wait");
    wait.append("Next hand in ", soon, mine ? " · you are ready" : "");
    $("#status").append(wait);
  }
}

/**
 * The end of a match of people: Play again (the same seats, new deals) instead of New game.
 * @param {State} s
 * @param {View} view
 */
function drawOverAgain(s, view) {
  const over = view.phase === "over";
  $("#over-again").hidden = !over || isWatching(s);
  const note = $("#over-again-note");
  note.hidden = !(over && s.next);
  note.textContent = s.next ? "A new match is ready at this table: the same seats, new deals." : "";
  $("#over-again").textContent = s.next ? "Go to the new match" : "Play again";
}

/**
 * The partner's offer to concede, as a question to this person; or this person's own
 * offer, waiting, in the status line.
 * @param {State} s
 * @param {View} view
 * @param {Seating} seating
 */
function drawOffer(s, view, seating) {
  const offer = (s.table || {}).offer;
  const box = dialog("#offer-dialog");
  const forMe = offer && s.you && offer.seat === partnerOf(s.you) && view.phase !== "over";
  if (offer && forMe && s.answered !== offer.until) {
    $("#offer-text").textContent = `${nameOf(s, offer.seat)} offers to give up the match: ${
      seating.sideName(seating.theirSide)} would win at once. Concede too, or decline and play on.`;
    if (!box.open) {
      openDialog(box);
      $("#offer-decline").focus();
      announce("Your partner offers to concede the match.");
    }
  } else {
    closeDialog(box);
  }
  const mine = offer && s.you && offer.seat === s.you && view.phase !== "over";
  const status = $("#status");
  let waiting = status.querySelector(".offer-wait");
  if (mine && s.you && !waiting) {
    waiting = el("span", "offer-wait", `Offered to your partner: waiting for ${
      nameOf(s, partnerOf(s.you))}.`);
    status.append(waiting);
  } else if (!mine && waiting) {
    waiting.remove();
  }
}

/**
 * A phrase from the table: a bubble by the speaker's seat until the store lets it go (the
 * live region says it, once, when it arrives).
 * @param {State} s
 * @param {Seating} seating
 */
export function drawBubbles(s, seating) {
  for (const place of PLACES) {
    const box = document.querySelector(`#seat-${place}`);
    if (!box) continue;
    const said = s.bubbles[seating.seatAt(place)];
    let bubble = /** @type {HTMLElement | null} */ (box.querySelector(".seat-bubble"));
    if (!said) {
      if (bubble) bubble.remove();
      continue;
    }
    if (bubble && bubble.dataset.n === String(said.n)) continue;
    if (!bubble) {
      bubble = el("p", "seat-bubble");
      bubble.setAttribute("aria-hidden", "true"); // the live region says it
      box.append(bubble);
    }
    bubble.dataset.n = String(said.n);
    bubble.textContent = said.text;
    bubble.classList.remove("pop");
    void bubble.offsetWidth; // restart the animation for a second phrase
    bubble.classList.add("pop");
  }
}

/** Every countdown on the page, once or twice a second (text only: not a live region). */
function tick() {
  const counting = "#table .countdown[data-until], #summary-ready .countdown";
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(counting))) {
    node.textContent = clock(secondsUntil(node.dataset.until));
  }
}

/**
 * Mark the cards on the table a computer player chose for someone away (a small robot).
 * @param {State} s
 * @param {HTMLElement} felt
 */
export function markAuto(s, felt) {
  for (const slot of /** @type {NodeListOf<HTMLElement>} */ (felt.querySelectorAll(".trick-slot"))) {
    const card = slot.dataset.card;
    const auto = Boolean(card) && s.auto.includes(card || "");
    const mark = slot.querySelector(".auto-mark");
    if (auto && !mark) {
      const badge = el("span", "auto-mark");
      badge.append(robot(`played for ${nameOf(s, slot.dataset.seat || "")} by a computer player`));
      slot.append(badge);
    } else if (!auto && mark) {
      mark.remove();
    }
  }
}

/** The Last trick dialog: say which of its cards a computer player chose for someone away.
 * @param {State} s */
export function markLastTrick(s) {
  for (const figure of document.querySelectorAll("#last-trick-body figure")) {
    const card = /** @type {HTMLElement | null} */ (figure.querySelector(".card"));
    const caption = figure.querySelector("figcaption");
    if (!card || !caption || !s.auto.includes(card.dataset.card || "")) continue;
    const note = el("small", "auto-note");
    note.append(robot(), " played by a computer player");
    caption.append(document.createElement("br"), note);
  }
}

/**
 * Whether conceding now needs the partner's yes (a person who is here, not a stand-in).
 * @param {State} s
 * @param {Seating} seating
 */
export function concedeNeedsPartner(s, seating) {
  if (!isPeopleTable(s) || !s.you) return false;
  const mate = seatDoc(s, seating.seatAt("top"));
  return Boolean(mate && mate.kind === "person" && mate.present && !mate.auto);
}

// ---------------------------------------------------------------- requests

/** @param {string} what */
function path(what) {
  return `/api/games/${encodeURIComponent(thePage().state().id || "")}/${what}`;
}

/** @param {string} what @param {object} [body] */
async function post(what, body = {}) {
  try {
    return await request("POST", path(what), body);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    toast(error.message);
    return null;
  }
}

/** @param {boolean} [open] */
function togglePhrases(open) {
  const menuButton = $("#phrase-button");
  const next = open === undefined ? menuButton.getAttribute("aria-expanded") !== "true" : open;
  menuButton.setAttribute("aria-expanded", String(next));
  $("#phrase-menu").classList.toggle("open", next);
  if (next) $("#phrase-menu button").focus();
}

/** @param {string} key */
async function sayPhrase(key) {
  togglePhrases(false);
  $("#phrase-button").focus();
  try {
    await request("POST", path("phrase"), { phrase: key });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    toast(error.message);
  }
}

async function startMatch() {
  button("#start-button").disabled = true;
  await thePage().send(() => request("POST", path("start"), {}));
}

async function leaveTable() {
  const left = await post("leave");
  if (left) thePage().home();
}

/** The host lists the table under Live tables, or takes it off (a refusal says why). */
async function chooseListing() {
  const p = thePage();
  const select = /** @type {HTMLSelectElement} */ ($("#listing-select"));
  // Read before sending: the page redraws while it sends, and the redraw shows the table's.
  const listing = select.value;
  await p.send(() => request("POST", path("listing"), { listing }));
  const table = p.state().table || {};
  select.value = table.public ? "public" : "private";
  announce(table.public ? "The table is public: listed under Live tables."
    : "The table is private: only people with the code can find it.");
}

async function copyLink() {
  const field = input("#waiting-link");
  const link = field.value;
  let copied = false;
  try {
    await navigator.clipboard.writeText(link);
    copied = true;
  } catch {
    // No clipboard here (permissions, an old browser): select the link to copy by hand.
    field.focus();
    field.select();
  }
  const status = $("#copy-status");
  status.textContent = copied ? "Link copied." : "Select the link above and copy it.";
  setTimeout(() => { status.textContent = ""; }, 4000);
}

/** The partner's offer: concede too (the match ends) or decline (play on). @param {boolean} agree */
async function answerOffer(agree) {
  const p = thePage();
  p.dispatch({ type: "offer-answered" });
  closeDialog(dialog("#offer-dialog"));
  if (agree) await p.send(() => api.concede(p.state().id));
  else if (await post("decline")) announce("You declined: play on.");
}

/** The host's choices for an open or absent seat. @param {string} seat */
function openSeatDialog(seat) {
  const s = thePage().state();
  const doc = seatDoc(s, seat) || { seat, kind: "open", name: "" };
  const box = dialog("#seat-dialog");
  box.dataset.seat = seat;
  $("#seat-title").textContent = `${seatWord(seat)}'s seat`;
  const code = (s.table || {}).code;
  $("#seat-text").textContent = doc.kind === "open"
    ? "This seat is open: a computer player plays it until someone joins with the table's code."
    : `${doc.name} is away. A computer player can take the seat for good, or you can leave `
      + `it open for someone new${code ? ` (code ${code})` : ""}; a computer player plays it `
      + "meanwhile.";
  $("#seat-open").hidden = doc.kind === "open";
  openDialog(box);
  $("#seat-bot").focus();
}

/** @param {string} to */
async function setSeat(to) {
  const box = dialog("#seat-dialog");
  const seat = box.dataset.seat;
  closeDialog(box);
  await thePage().send(() => request("POST", path("seat"), { seat, to }));
}

/** Play again: the new table's id from the server (asked twice, the same one). */
async function playAgain() {
  const p = thePage();
  const next = p.state().next;
  if (next) {
    p.enter(next);
    return;
  }
  button("#over-again").disabled = true;
  try {
    const made = await post("again");
    if (made) p.enter(made.id, made.state);
  } finally {
    button("#over-again").disabled = false;
  }
}

/** @param {Page} hooks */
export function wireOnline(hooks) {
  page = hooks;
  $("#start-button").addEventListener("click", startMatch);
  $("#leave-button").addEventListener("click", leaveTable);
  $("#copy-link").addEventListener("click", copyLink);
  $("#listing-select").addEventListener("change", chooseListing);
  $("#offer-concede").addEventListener("click", () => answerOffer(true));
  $("#offer-decline").addEventListener("click", () => answerOffer(false));
  $("#offer-dialog").addEventListener("cancel", () => hooks.dispatch({ type: "offer-answered" }));
  $("#seat-bot").addEventListener("click", () => setSeat("bot"));
  $("#seat-open").addEventListener("click", () => setSeat("open"));
  $("#seat-cancel").addEventListener("click", () => closeDialog(dialog("#seat-dialog")));
  $("#over-again").addEventListener("click", playAgain);
  $("#phrase-button").addEventListener("click", () => togglePhrases());
  const menu = $("#phrase-menu");
  menu.replaceChildren(...Object.entries(PHRASES).map(([key, text]) => {
    const item = el("button", "secondary", text);
    item.type = "button";
    item.setAttribute("role", "menuitem");
    item.addEventListener("click", () => sayPhrase(key));
    return item;
  }));
  menu.addEventListener("keydown", (event) => {
    const items = [.../** @type {NodeListOf<HTMLButtonElement>} */ (menu.querySelectorAll("button"))];
    const at = items.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    if (event.key === "Escape") {
      event.stopPropagation();
      togglePhrases(false);
      $("#phrase-button").focus();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const stepBy = event.key === "ArrowDown" ? 1 : -1;
      items[(at + stepBy + items.length) % items.length].focus();
    }
  });
  document.addEventListener("click", (event) => {
    const target = /** @type {Element | null} */ (event.target);
    if (!target || !target.closest("#phrase-button, #phrase-menu")) togglePhrases(false);
  });
}
