// @ts-check
// The table page's controller. The page's state is one store (store.js): every message from
// the server and every intention of the player goes through ``dispatch``, which runs the pure
// ``apply`` and then draws the page from the result (``render``). This module decides when:
// it animates the server's events one by one (each step is a message to the store too), says
// what changed (the live region, sounds, toasts) and sends the player's intentions. Drawing,
// input, dialogs, settings and sounds live in their own modules.
//
// The client never decides a rule. Every control it enables comes from ``view.legal``; an
// action the server refuses shows the server's own one-line reason, and nothing changes.

import { api, GameSocket, Refusal } from "./connection.js";
import { showDaily } from "./dailytable.js";
import {
  anyDialogOpen, askConcede, closeDialog, openDialog, showLastTrick, showOver, showRules,
  showScores, showSummary,
} from "./dialogs.js";
import { $, button, dialog } from "./dom.js";
import { drawHand as drawHandUntyped } from "./hand.js";
import { forgetGame, rememberGame, showHomePage } from "./home.js";
import { attachInput } from "./input.js";
import { showLobby as showLobbyUntyped, wireLobby } from "./lobby.js";
import { fillCustom, loadPresets, rulesFromForm } from "./newgame.js";
import { announce, cardNote, toast } from "./notices.js";
import {
  autoWords, concedeNeedsPartner, drawOnline, markAuto, markLastTrick,
  reactOnline, resetOnline, wireOnline,
} from "./online.js";
import { buildBidGrid, cardsToPass, drawPanel } from "./panel.js";
import { seating as seatingUntyped } from "./seats.js";
import * as settings from "./settings.js";
import * as sound from "./sound.js";
import {
  apply, behind, closedReason, currentHint, initial, isPeopleTable, isWatching, legalNow,
  namesOf, waiting,
} from "./store.js";
import {
  buildFelt, collectTrick, drawBadges, drawScorebar, drawSeats, drawTrick as drawTrickUntyped,
  trickCards,
} from "./table.js";
import {
  claim, drawTableActions, tableActionWords, undo, wireTableActions,
} from "./tableactions.js";
import { eventWords, number, statusText } from "./words.js";

/** @typedef {import("./store.js").State} State */
/** @typedef {import("./store.js").View} View */
/** @typedef {{type: string, [key: string]: any}} Message */

// The older modules carry no types of their own: the checker reads a parameter's default
// (``null``) as its only type. These are the signatures this page calls them with.
/** @type {(viewer: string | null, names?: Record<string, string>) => ReturnType<typeof seatingUntyped>} */
const seatingOf = /** @type {any} */ (seatingUntyped);
/** @type {(felt: HTMLElement, cards: any[], seating: any, marks?: {leader?: string | null, winner?: string | null}) => void} */
const drawTrick = /** @type {any} */ (drawTrickUntyped);
/** @type {(hand: HTMLElement, view: View, options: {legal: Set<string>, lifted: string | null, picks: Set<string>, hinted: string | null, deal: boolean}) => void} */
const drawHand = /** @type {any} */ (drawHandUntyped);
/** @type {(code: string | null) => Promise<void>} */
const showLobby = /** @type {any} */ (showLobbyUntyped);

// "?fast" (kept for the tab's session) shortens the animations: the browser tests use it.
if (new URLSearchParams(location.search).has("fast")) sessionStorage.setItem("varaq-fast", "1");
const FAST = sessionStorage.getItem("varaq-fast") === "1";
const REDUCED_MOTION = matchMedia("(prefers-reduced-motion: reduce)").matches;
const TEST_PACE = { card: 40, bid: 20, trick: 160, collect: 60 };

/** Milliseconds to dwell on a step of the animation (settings.PACES), at the table's speed as
 * the server last said it (at a table of people it is the table's, not this player's choice),
 * else at the player's; with reduced motion a card lands without its slide, so it needs less
 * than half the time.
 * @param {keyof typeof TEST_PACE} step */
function pace(step) {
  if (FAST) return TEST_PACE[step];
  const paces = /** @type {Record<string, typeof TEST_PACE>} */ (settings.PACES);
  const speed = state.pace && paces[state.pace] ? state.pace : String(settings.speed());
  const ms = paces[speed][step];
  return REDUCED_MOTION && step === "card" ? ms * 0.45 : ms;
}

/** Tell whoever listens (the browser tests, a profiler) what the table shows now: each card
 * as it lands ("varaq:card", also a performance mark) and each trick as it is swept up
 * ("varaq:trick-cleared"), stamped with ``performance.now()``.
 * @param {string} name @param {Record<string, any>} detail */
function mark(name, detail) {
  const at = performance.now();
  performance.mark(name, { detail });
  document.dispatchEvent(new CustomEvent(name, { detail: { ...detail, at } }));
}

/** The one store: changed only by ``dispatch``. */
let state = initial();

/** The connections and timers of the table shown: handles, not state the page draws from. */
const live = {
  /** @type {GameSocket | null} */
  socket: null,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  fallback: undefined,
  /** @type {ReturnType<typeof setInterval> | undefined} */
  poll: undefined,
};

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The table as the viewer sees it now: their chair and the seats' names. @param {State} s */
function seatingFor(s) {
  return seatingOf(s.shown ? s.shown.seat : "S", namesOf(s));
}

/**
 * Change the store by one message, say what changed, and draw the page again: all of it
 * (``"all"``), only the parts of a table of people while events are still being shown
 * (``"table"``: a trick being collected is not drawn back), the one or the other as a full
 * state replaced the game or not (``"state"``), or nothing.
 * @param {Message} message
 * @param {"all" | "table" | "state" | "none"} [draw]
 */
function dispatch(message, draw = "all") {
  const before = state;
  state = apply(state, message);
  react(before, state, message);
  if (draw === "state") draw = state.generation !== before.generation ? "all" : "table";
  if (draw === "all" || (draw === "table" && !behind(state))) render();
  else if (draw === "table" && state.shown) drawOnline(state, seatingFor(state));
}

/**
 * What a change means beyond the drawing: the live region, the home page's resume link, a
 * resync when a version went missing, refusals shown as toasts.
 * @param {State} before
 * @param {State} after
 * @param {Message} message
 */
function react(before, after, message) {
  if (after.gaps !== before.gaps && live.socket) live.socket.resync();
  if (after.shown && after.id && (!before.shown || before.shown.phase !== after.shown.phase)) {
    rememberGame(after.id, after.shown);
  }
  if (message.type === "state" && after.generation !== before.generation && before.version) {
    // A full state jumped over events the page never showed: say them in one breath.
    const seating = seatingFor(after);
    /** @type {import("./store.js").GameEvent[]} */
    const events = message.events || [];
    const missed = events.filter((e) => e.version > before.version);
    if (missed.length && after.shown) {
      const view = after.shown;
      announce(missed.map((e) => autoWords(after, e, eventWords(e, view, seating))).join(" "));
    }
  }
  if (message.type === "hint" && after.hint !== before.hint && after.hint) {
    announce(`Hint: ${after.hint.text}`);
  }
  if (message.type === "error" && !quietError(message)) toast(message.error);
  reactOnline(before, after, message, seatingFor(after));
}

/** An error the server sends for a message it does not know yet (the speed, until it is
 * supported) is not the player's concern. @param {Message} message */
function quietError(message) {
  return /^unknown message type\b.*pace/.test(message.error || "");
}

// ---------------------------------------------------------------- drawing

/** Why a dimmed card cannot be played, as the server says, just above the hand.
 * @param {string} code */
function explain(code) {
  const view = state.shown;
  const reason = view && view.why_not && view.why_not[code];
  if (reason) cardNote(reason);
}

/** Draw the table from the store. */
function render() {
  const s = state;
  const view = s.shown;
  if (!view) return;
  const seating = seatingFor(s);
  const legal = legalNow(s);
  const hint = currentHint(s);
  const picks = new Set(s.picks);
  const felt = $("#felt");
  showDaily(s.table);
  drawScorebar($("#scorebar"), view, seating);
  drawBadges($("#badges"), view.badges);
  drawSeats(felt, view, seating);
  if (s.finished) drawTrick(felt, trickCards(s.finished), seating, s.finished);
  else drawTrick(felt, view.trick, seating, { leader: view.leader });
  markAuto(s, felt);
  const summaryClosed = s.summaryClosedFor === view.history.length;
  const people = isPeopleTable(s);
  drawPanel(view, seating, {
    legal, hint, picks, busy: waiting(s),
    nextButton: view.phase === "deal" && (summaryClosed || !view.history.length)
      && !isWatching(s) && !(people && !view.history.length),
    newGameButton: view.phase === "over" && s.overClosed,
    newGameText: people ? "Play again" : "New game",
    onNext: nextHand, onNewGame: people ? () => $("#over-again").click() : openNewGame,
  });
  drawHand($("#hand"), view, {
    legal, lifted: s.lifted, picks, hinted: hint ? hint.action : null, deal: !FAST,
  });
  button("#last-trick-button").disabled = !view.tricks.length;
  button("#concede-button").disabled = view.phase === "over";
  button("#hint-button").disabled = legal.size === 0;
  drawTableActions(s, seating.isMe, seating.name);
  const table = $("#table");
  table.dataset.phase = view.phase;
  table.dataset.turn = view.turn || "";
  const myMove = legal.size > 0;
  document.title = `${myMove ? "● Your turn · " : ""}Varaq · ${
    number(view.totals[seating.mySide])} – ${number(view.totals[seating.theirSide])}`;
  if (myMove && s.turnAnnounced !== s.version) {
    // Once per position, so a screen reader hears when the table waits for the player.
    state = apply(state, { type: "turn-announced" });
    announce(statusText(view, seating));
    if (view.phase === "play" || view.phase === "bid") sound.play("turn");
  }
  drawOnline(s, seating);
  showClosed(closedReason(s));
  if (!behind(s)) showDialogsFor(s, view, seating);
}

/** An administrator closed the table: the status line says so, with their reason, in place
 * of whose turn it is (nothing can be played any more).
 * @param {string | null} reason */
function showClosed(reason) {
  $("#table").dataset.closed = reason === null ? "" : "closed";
  if (reason === null) return;
  $("#table").dataset.turn = "";  // nobody is to play
  $("#status").textContent =
    `This table was closed by an administrator${reason ? `: ${reason}` : "."}`;
  button("#concede-button").disabled = true;
}

/**
 * The hand summary and the end of the match, opened by themselves unless the player closed
 * them.
 * @param {State} s
 * @param {View} view
 * @param {ReturnType<typeof seatingOf>} seating
 */
function showDialogsFor(s, view, seating) {
  if (view.phase === "deal" && view.history.length
      && s.summaryClosedFor !== view.history.length) {
    showSummary(view, seating);
  } else if ($("#next-hand").hidden === false) {
    closeDialog(dialog("#summary-dialog"));
  }
  if (view.phase === "over" && !s.overClosed) {
    const fresh = !dialog("#over-dialog").open;
    showOver(view, seating, api.recordUrl(s.id));
    if (fresh && isPeopleTable(s) && !isWatching(s)) $("#over-again").focus();
  } else {
    closeDialog(dialog("#over-dialog"));
  }
}

// ---------------------------------------------------------------- events from the server

/** A STATE from an HTTP answer (or the socket): the same message to the store.
 * @param {object} answer */
function acceptState(answer) {
  dispatch({ ...answer, type: "state" }, "state");
}

/** @param {Message} message */
function onSocketMessage(message) {
  switch (message.type) {
    case "state":
      acceptState(message);
      break;
    case "event":
      dispatch(message, "table");
      pump();
      break;
    case "table":
      dispatch(message, "table");
      break;
    case "phrase":
    case "again":
    case "concede":
    case "pace":
      // Drawn (or said) by reactOnline as they arrive; nothing else on the page changes.
      dispatch(message, "none");
      break;
    default:
      // hint, error: the whole page follows.
      dispatch(message);
      break;
  }
}

/** @param {string} status */
function onSocketStatus(status) {
  dispatch({ type: "connection", status }, "none");
  const line = $("#connection");
  line.hidden = status !== "reconnecting" && status !== "restarting" && status !== "gone";
  line.textContent = status === "reconnecting" ? "Connection lost — reconnecting…"
    : status === "restarting" ? "The server is restarting — back in a moment…"
    : status === "gone" ? "This game is no longer on the server." : "";
  // While the socket is down, ask over HTTP now and then, so the table never stalls.
  clearInterval(live.poll);
  live.poll = status === "reconnecting" ? setInterval(poll, 3000) : undefined;
}

async function poll() {
  if (!state.id) return;
  try {
    acceptState(await api.state(state.id, state.version));
  } catch {
    // The server is away; the socket's backoff keeps trying too.
  }
}

/** Animate the queued events one at a time; the controls stay off until the queue is empty. */
async function pump() {
  if (state.animating) return;
  dispatch({ type: "animating", on: true }, "none");
  // A full state (a resync) replaces whatever is still being animated: stop at once.
  const generation = state.generation;
  const current = () => generation === state.generation;
  try {
    while (state.queue.length && current()) {
      const { event, view } = state.queue[0];
      const words = seatingOf(view.seat, namesOf(state));
      announce([tableActionWords(event, words.isMe, words.name),
        autoWords(state, event, eventWords(event, view, words))].filter(Boolean).join(" "));
      if (event.kind === "play") sound.play("card");
      if (event.kind === "deal") sound.play("deal");
      dispatch({ type: "step" });
      if (event.kind === "play") mark("varaq:card", { seat: event.seat, card: event.action });
      if (event.kind === "play" && event.trick) {
        await sleep(pace("trick"));
        if (!current()) break;
        collectTrick($("#felt"), event.trick.winner, seatingFor(state));
        sound.play("trick");
        mark("varaq:trick-cleared", { winner: event.trick.winner });
        await sleep(pace("collect"));
        if (!current()) break;
        dispatch({ type: "collected" });
      } else {
        await sleep(pace(event.kind === "play" ? "card" : "bid"));
      }
    }
  } finally {
    dispatch({ type: "animating", on: false }, "none");
  }
  render();
  if (state.queue.length) pump();
}

// ---------------------------------------------------------------- sending intentions

/** After the server accepted an action, wait for its events on the socket; if the socket is
 * late (or down) show the answer's state directly. @param {{version: number}} answer */
function awaitEvents(answer) {
  dispatch({ type: "sent", version: answer.version }, "none");
  clearTimeout(live.fallback);
  live.fallback = setTimeout(() => {
    if (state.version < answer.version) acceptState(answer);
    render();
  }, 1500);
}

/** Send one request; a refusal shows the server's reason.  A stale version resyncs, and so
 * does a table's server that did not answer in time (503): the move may still have been made.
 * @param {() => Promise<any>} request */
async function send(request) {
  if (state.sending) return null;
  dispatch({ type: "sending", on: true });
  try {
    const answer = await request();
    awaitEvents(answer);
    return answer;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    toast(error.message);
    if (error.status === 409 || error.status === 503) await resync();
  } finally {
    dispatch({ type: "sending", on: false });
  }
  return null;
}

async function resync() {
  try {
    acceptState(await api.state(state.id));
  } catch (error) {
    if (error instanceof Refusal) toast(error.message);
  }
}

/** @param {string} action */
function act(action) {
  return send(() => api.act(state.id, action, state.version));
}

function nextHand() {
  // At a table of people the summary stays up, saying who else is ready, until the deal.
  if (!isPeopleTable(state)) {
    dispatch({ type: "summary-closed", hand: -1 }, "none");
    closeDialog(dialog("#summary-dialog"));
  }
  return send(() => api.next(state.id, state.version));
}

async function passPicked() {
  const picks = [...state.picks];
  dispatch({ type: "clear-picks" }, "none");
  let version = state.version;
  for (const card of picks) {
    // Each card is its own action, made on the state our previous card produced; stop at the
    // first refusal.
    const answer = await send(() => api.act(state.id, card, version));
    if (!answer) break;
    version = answer.version;
  }
}

async function askHint() {
  const answer = await api.hint(state.id).catch((error) => {
    if (error instanceof Refusal) toast(error.message);
    return null;
  });
  if (answer) dispatch({ ...answer, type: "hint" });
}

async function concede() {
  closeDialog(dialog("#concede-dialog"));
  const answer = await send(() => api.concede(state.id));
  if (answer && answer.concede) dispatch({ type: "concede", concede: answer.concede }, "none");
}

/** What the input module may ask of the page. */
const inputPage = {
  view: () => (state.shown && !$("#table").hidden ? state.shown : null),
  lifted: () => state.lifted,
  /** @param {string} code */
  lift(code) {
    dispatch({ type: "lift", card: code });
  },
  /** @param {string} code */
  play: (code) => act(code),
  /** @param {string} code */
  pick(code) {
    const need = cardsToPass(state.shown);
    dispatch({ type: "pick", card: code, need });
    if (state.picks.length === need) $("#exchange-send").focus();
  },
  explain,
  /** @param {string} action */
  bid(action) {
    const choice = /** @type {HTMLButtonElement | null} */ (
      document.querySelector(`#bid-grid button[data-action="${action}"]`));
    if (!choice || choice.disabled) {
      toast(action === "nil" ? "Nil is not open to you now." : `You cannot ${action} now.`);
      return;
    }
    act(action);
  },
  canBid: () => Boolean(state.shown) && !$("#bid-panel").hidden,
  undo: () => { undo(); },
  claim: () => { claim(); },
  say: toast,
};

// ---------------------------------------------------------------- settings

function paceMessage() {
  return { type: "pace", pace: settings.speed() };
}

// ---------------------------------------------------------------- new game and pages

async function openNewGame() {
  closeDialog(dialog("#over-dialog"));
  await loadPresets();
  $("#new-game-error").hidden = true;
  openDialog(dialog("#new-game-dialog"));
}

/** @param {Event} event */
async function startNewGame(event) {
  event.preventDefault();
  const form = $("#new-game-form", HTMLFormElement);
  const level = /** @type {RadioNodeList} */ (form.elements.namedItem("level")).value || "normal";
  const start = button("#new-game-start");
  start.disabled = true;
  try {
    const created = await api.create({ level, rules: rulesFromForm() });
    closeDialog(dialog("#new-game-dialog"));
    history.pushState({}, "", `/play/${created.id}`);
    enterGame(created.id, created.state);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const box = $("#new-game-error");
    box.textContent = error.message;
    box.hidden = false;
  } finally {
    start.disabled = false;
  }
}

/** The home page; ``joinCode``: it came from a /join/{code} link (the lobby joins).
 * @param {string | null} [joinCode] */
function showHome(joinCode = null) {
  if (live.socket) live.socket.close();
  live.socket = null;
  showHomePage();
  showLobby(joinCode);
}

/** @param {string} id @param {object} [first] the table's STATE, when it came with a request */
async function enterGame(id, first) {
  if (live.socket) live.socket.close();
  live.socket = null;
  resetOnline();
  dispatch({ type: "enter", id }, "none");
  $("#home").hidden = true;
  $("#table").hidden = false;
  document.body.dataset.page = "table";
  document.title = "Varaq · Table";
  $("#record-link", HTMLAnchorElement).href = api.recordUrl(id);
  for (const link of [$("#review-link"), $("#over-review")]) link.dataset.table = id;
  try {
    acceptState(first || await api.state(id));
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    if (error.status === 404) {
      forgetGame();
      history.replaceState({}, "", "/");
      showHome();
    }
    toast(error.message);
    if (error.status === 404) return;
  }
  const socket = new GameSocket(id, /** @type {any} */ ({
    version: () => state.version,
    // At a table of people the speed is the table's: sent only when someone changes it.
    greeting: () => (isPeopleTable(state) ? [] : [paceMessage()]),
    onMessage: onSocketMessage,
    onStatus: onSocketStatus,
  }));
  live.socket = socket;
  socket.open();
}

function route() {
  const match = location.pathname.match(/^\/play\/([A-Za-z0-9_-]+)\/?$/);
  const join = location.pathname.match(/^\/join\/([A-Za-z0-9_-]+)\/?$/);
  if (match) enterGame(match[1]);
  else showHome(join ? join[1] : null);
}

/** @param {boolean} [open] */
function toggleMore(open) {
  const more = $("#more-button");
  const next = open === undefined ? more.getAttribute("aria-expanded") !== "true" : open;
  more.setAttribute("aria-expanded", String(next));
  $("#more-menu").classList.toggle("open", next);
}

function closeSummary() {
  const hand = state.shown && !$("#next-hand").hidden ? state.shown.history.length
    : state.summaryClosedFor;
  dispatch({ type: "summary-closed", hand }, "none");
  setTimeout(render);
}

function wire() {
  settings.wireSettings({
    sound,
    onSpeed: () => { if (live.socket && !isWatching(state)) live.socket.send(paceMessage()); },
  });
  buildFelt($("#felt"));
  buildBidGrid($("#bid-grid"), (/** @type {string} */ action) => act(action));
  wireLobby({ enterGame });
  wireOnline({
    state: () => state,
    dispatch: (message) => dispatch(message),
    send,
    home: () => {
      history.pushState({}, "", "/");
      showHome();
    },
    enter: (id, first) => {
      history.pushState({}, "", `/play/${id}`);
      enterGame(id, first);
    },
  });
  $("#new-game").addEventListener("click", openNewGame);
  $("#over-new-game").addEventListener("click", openNewGame);
  $("#new-game-form").addEventListener("submit", startNewGame);
  $("#new-game-cancel").addEventListener("click", () => closeDialog(dialog("#new-game-dialog")));
  $("#preset-select").addEventListener("change", fillCustom);
  const custom = $("#custom-toggle", HTMLInputElement);
  custom.addEventListener("change", () => { $("#custom-rules").hidden = !custom.checked; });
  $("#summary-close").addEventListener("click", () => {
    closeSummary();
    closeDialog(dialog("#summary-dialog"));
  });
  $("#summary-dialog").addEventListener("cancel", closeSummary);
  $("#over-dialog").addEventListener("close", () => dispatch({ type: "over-closed" }));
  $("#next-hand").addEventListener("click", nextHand);
  $("#last-trick-button").addEventListener("click", () => {
    if (state.shown) {
      showLastTrick(state.shown, seatingFor(state));
      markLastTrick(state);
    }
  });
  $("#last-trick-close").addEventListener("click", () => closeDialog(dialog("#last-trick-dialog")));
  $("#scores-button").addEventListener("click", () => {
    if (state.shown) showScores(state.shown, seatingFor(state));
  });
  $("#rules-button").addEventListener("click", () => {
    if (state.shown) showRules(state.shown);
  });
  $("#rules-close").addEventListener("click", () => closeDialog(dialog("#rules-dialog")));
  $("#hint-button").addEventListener("click", askHint);
  wireTableActions({
    state: () => state, dispatch, acceptState, announce, toast,
  });
  $("#more-button").addEventListener("click", () => toggleMore());
  $("#concede-button").addEventListener("click", () => {
    toggleMore(false);
    const seating = seatingFor(state);
    askConcede(seating);
    if (concedeNeedsPartner(state, seating)) {
      $("#concede-text").textContent = `${seating.name(seating.seatAt("top"))} must agree: then ${
        seating.sideName(seating.theirSide)} win at once.`;
    }
  });
  $("#concede-cancel").addEventListener("click", () => closeDialog(dialog("#concede-dialog")));
  $("#concede-confirm").addEventListener("click", concede);
  $("#exchange-send").addEventListener("click", passPicked);
  for (const choice of /** @type {NodeListOf<HTMLElement>} */ (
    document.querySelectorAll("#blind-panel [data-action]"))) {
    choice.addEventListener("click", () => act(choice.dataset.action || ""));
  }
  attachInput({ hand: $("#hand"), trick: $("#trick"), page: inputPage });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !anyDialogOpen()) toggleMore(false);
  });
  // The "More" menu (phones) closes when the player taps anywhere else.
  document.addEventListener("click", (event) => {
    const target = /** @type {Element | null} */ (event.target);
    if (!target || !target.closest || !target.closest(".controls")) toggleMore(false);
  });
  window.addEventListener("popstate", route);
}

wire();
route();
