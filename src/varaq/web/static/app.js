// The table page's controller: holds the game the page shows, animates the server's events one
// by one, and sends the player's intentions. Drawing, input, dialogs, settings and sounds live
// in their own modules; this one decides when each is called.
//
// The client never decides a rule. Every control it enables comes from ``view.legal``; an
// action the server refuses shows the server's own one-line reason, and nothing changes.

import { api, GameSocket, Refusal } from "./connection.js";
import { showDaily } from "./dailytable.js";
import {
  anyDialogOpen, askConcede, closeDialog, openDialog, showLastTrick, showOver, showRules,
  showScores, showSummary,
} from "./dialogs.js";
import { drawHand } from "./hand.js";
import { forgetGame, rememberGame, showHomePage } from "./home.js";
import { attachInput } from "./input.js";
import { showLobby, wireLobby } from "./lobby.js";
import { fillCustom, loadPresets, rulesFromForm } from "./newgame.js";
import { announce, cardNote, toast } from "./notices.js";
import {
  againReady, autoWords, concedeNeedsPartner, conceded, drawOnline, isPeopleTable, isWatching,
  markAuto, markLastTrick, noteEvent, noteEvents, resetOnline, seatNames, showPhrase,
  updateOnline, wireOnline,
} from "./online.js";
import { buildBidGrid, cardsToPass, drawPanel } from "./panel.js";
import { seating as seatingOf } from "./seats.js";
import * as settings from "./settings.js";
import * as sound from "./sound.js";
import {
  buildFelt, collectTrick, drawBadges, drawScorebar, drawSeats, drawTrick, trickCards,
} from "./table.js";
import { eventWords, number, statusText } from "./words.js";

const $ = (selector) => document.querySelector(selector);

// "?fast" (kept for the tab's session) shortens the animations: the browser tests use it.
if (new URLSearchParams(location.search).has("fast")) sessionStorage.setItem("varaq-fast", "1");
const FAST = sessionStorage.getItem("varaq-fast") === "1";
const REDUCED_MOTION = matchMedia("(prefers-reduced-motion: reduce)").matches;
const BASE_PACE = {
  card: FAST ? 40 : REDUCED_MOTION ? 150 : 330,
  bid: FAST ? 20 : 260,
  trick: FAST ? 160 : 1100,
  collect: FAST ? 60 : 320,
};

/** Milliseconds to dwell on a step of the animation, at the player's speed. */
function pace(step) {
  return FAST ? BASE_PACE[step] : BASE_PACE[step] * settings.SPEED_FACTOR[settings.speed()];
}

const game = {
  id: null,
  /** The newest version received (shown or waiting in the queue). */
  version: 0,
  /** The view on screen, which lags ``version`` while events are being animated. */
  shown: null,
  names: {},
  seating: seatingOf("S", {}),
  queue: [],
  animating: false,
  /** Bumped by every full state, so an animation of older events stops. */
  generation: 0,
  socket: null,
  /** While an action is on its way, or its answer is ahead of the events shown. */
  sending: false,
  awaitVersion: 0,
  fallback: null,
  poll: null,
  /** The card lifted by a first tap (touch), played by a second tap. */
  lifted: null,
  /** Exchange: cards picked but not yet passed. */
  picks: new Set(),
  hint: null,
  /** history.length whose summary the player closed (so it does not reopen by itself). */
  summaryClosedFor: -1,
  overClosed: false,
  /** The version at which "your turn" was last announced. */
  turnAnnounced: -1,
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a dimmed card cannot be played, as the server says, just above the hand. */
function explain(code) {
  const view = game.shown;
  const reason = view && view.why_not && view.why_not[code];
  if (reason) cardNote(reason);
}

// ---------------------------------------------------------------- drawing

function waiting() {
  return game.sending || game.version < game.awaitVersion;
}

function legalSet(view) {
  return new Set(game.animating || game.queue.length || waiting() ? [] : view.legal);
}

function currentHint() {
  return game.hint && game.hint.version === game.version ? game.hint : null;
}

function render(view, { finished = null } = {}) {
  if (!game.shown || game.shown.phase !== view.phase) rememberGame(game.id, view);
  game.shown = view;
  game.seating = seatingOf(view.seat, game.names);
  const seating = game.seating;
  const legal = legalSet(view);
  const hint = currentHint();
  const felt = $("#felt");
  drawScorebar($("#scorebar"), view, seating);
  drawBadges($("#badges"), view.badges);
  drawSeats(felt, view, seating);
  if (finished) drawTrick(felt, trickCards(finished), seating, finished);
  else drawTrick(felt, view.trick, seating, { leader: view.leader });
  markAuto(felt);
  const summaryClosed = game.summaryClosedFor === view.history.length;
  const people = isPeopleTable();
  drawPanel(view, seating, {
    legal, hint, picks: game.picks, busy: waiting(),
    nextButton: view.phase === "deal" && (summaryClosed || !view.history.length)
      && !isWatching() && !(people && !view.history.length),
    newGameButton: view.phase === "over" && game.overClosed,
    newGameText: people ? "Play again" : "New game",
    onNext: nextHand, onNewGame: people ? () => $("#over-again").click() : openNewGame,
  });
  if (!(view.phase === "exchange" && view.turn === seating.me)) game.picks.clear();
  if (game.lifted && !legal.has(game.lifted)) game.lifted = null;
  drawHand($("#hand"), view, {
    legal, lifted: game.lifted, picks: game.picks, hinted: hint && hint.action, deal: !FAST,
  });
  $("#last-trick-button").disabled = !view.tricks.length;
  $("#concede-button").disabled = view.phase === "over";
  $("#hint-button").disabled = legal.size === 0;
  const table = $("#table");
  table.dataset.phase = view.phase;
  table.dataset.turn = view.turn || "";
  const myMove = legal.size > 0;
  document.title = `${myMove ? "● Your turn · " : ""}Varaq · ${
    number(view.totals[seating.mySide])} – ${number(view.totals[seating.theirSide])}`;
  if (myMove && game.turnAnnounced !== game.version) {
    // Once per position, so a screen reader hears when the table waits for the player.
    game.turnAnnounced = game.version;
    announce(statusText(view, seating));
    if (view.phase === "play" || view.phase === "bid") sound.play("turn");
  }
  drawOnline(view, seating);
  if (!game.animating && !game.queue.length) showDialogsFor(view);
}

/** The table changed around the game (seats, presence, timers, offers): draw it now. */
function takeTable(message) {
  updateOnline(message);
  if (isPeopleTable()) game.names = { ...game.names, ...seatNames() };
}

function refreshOnline() {
  if (game.shown) {
    game.seating = seatingOf(game.shown.seat, game.names);
    if (game.animating || game.queue.length) drawOnline(game.shown, game.seating);
    else render(game.shown);
  }
}

function rerender() {
  if (game.shown) render(game.shown);
}

function showDialogsFor(view) {
  const seating = game.seating;
  if (view.phase === "deal" && view.history.length
      && game.summaryClosedFor !== view.history.length) {
    showSummary(view, seating);
  } else if ($("#next-hand").hidden === false) {
    closeDialog($("#summary-dialog"));
  }
  if (view.phase === "over" && !game.overClosed) {
    const fresh = !$("#over-dialog").open;
    showOver(view, seating, api.recordUrl(game.id));
    if (fresh && isPeopleTable() && !isWatching()) $("#over-again").focus();
  } else {
    closeDialog($("#over-dialog"));
  }
}

// ---------------------------------------------------------------- events from the server

function acceptState(state) {
  if (state.names) game.names = { ...state.names };
  if (state.table) showDaily(state.table);
  takeTable({ kind: state.kind, you: state.you, status: state.status, table: state.table });
  // ``resync``: the server never had our version (say, a database restored from a backup).
  if (game.shown && state.version <= game.version && !state.resync) {
    refreshOnline();
    return;
  }
  const previous = game.version;
  if (!previous || state.resync) noteEvents(state.events);
  else for (const event of state.events || []) if (event.version > previous) noteEvent(event);
  game.version = state.version;
  game.queue = [];
  game.generation += 1;
  const seating = seatingOf(state.view.seat, game.names);
  const missed = (state.events || []).filter((e) => e.version > previous);
  if (previous && missed.length) {
    announce(missed.map((e) => autoWords(e, eventWords(e, state.view, seating))).join(" "));
  }
  render(state.view);
}

/** An error the server sends for a message it does not know yet (the speed, until it is
 * supported) is not the player's concern. */
function quietError(message) {
  return /^unknown message type\b.*pace/.test(message.error || "");
}

function onSocketMessage(message) {
  switch (message.type) {
    case "state":
      acceptState(message);
      break;
    case "event":
      if (message.version <= game.version) return;
      if (message.version > game.version + 1) {
        game.socket.resync();
        return;
      }
      game.version = message.version;
      game.queue.push({ event: message.event, view: message.view });
      if (message.table) {
        takeTable({ status: message.status, table: message.table, view: message.view });
        refreshOnline();
      }
      pump();
      break;
    case "table":
      takeTable({ status: message.status, table: message.table });
      refreshOnline();
      break;
    case "phrase":
      showPhrase(message, game.seating);
      break;
    case "again":
      againReady(message.id);
      break;
    case "concede":
      conceded(message);
      break;
    case "error":
      if (quietError(message)) return;
      toast(message.error);
      rerender();
      break;
    case "hint":
      showHint(message);
      break;
    default:
      break;
  }
}

function onSocketStatus(status) {
  const line = $("#connection");
  line.hidden = status !== "reconnecting" && status !== "gone";
  line.textContent = status === "reconnecting" ? "Connection lost — reconnecting…"
    : status === "gone" ? "This game is no longer on the server." : "";
  // While the socket is down, ask over HTTP now and then, so the table never stalls.
  clearInterval(game.poll);
  game.poll = status === "reconnecting" ? setInterval(poll, 3000) : null;
}

async function poll() {
  if (!game.id) return;
  try {
    acceptState(await api.state(game.id, game.version));
  } catch {
    // The server is away; the socket's backoff keeps trying too.
  }
}

/** Animate the queued events one at a time; the controls stay off until the queue is empty. */
async function pump() {
  if (game.animating) return;
  game.animating = true;
  // A full state (a resync) replaces whatever is still being animated: stop at once.
  const generation = game.generation;
  const current = () => generation === game.generation;
  try {
    while (game.queue.length && current()) {
      const { event, view } = game.queue.shift();
      if (game.hint && game.hint.version !== game.version) game.hint = null;
      noteEvent(event);
      announce(autoWords(event, eventWords(event, view, seatingOf(view.seat, game.names))));
      if (event.kind === "play") sound.play("card");
      if (event.kind === "deal") sound.play("deal");
      if (event.kind === "play" && event.trick) {
        render(view, { finished: event.trick });
        await sleep(pace("trick"));
        if (!current()) break;
        collectTrick($("#felt"), event.trick.winner, game.seating);
        sound.play("trick");
        await sleep(pace("collect"));
        if (!current()) break;
        render(view);
      } else {
        render(view);
        await sleep(pace(event.kind === "play" ? "card" : "bid"));
      }
    }
  } finally {
    game.animating = false;
  }
  rerender();
  if (game.queue.length) pump();
}

// ---------------------------------------------------------------- sending intentions

/** After the server accepted an action, wait for its events on the socket; if the socket is
 * late (or down) show the answer's state directly. */
function awaitEvents(state) {
  game.awaitVersion = Math.max(game.awaitVersion, state.version);
  clearTimeout(game.fallback);
  game.fallback = setTimeout(() => {
    if (game.version < state.version) acceptState(state);
    rerender();
  }, 1500);
}

/** Send one request; a refusal shows the server's reason (and a stale version resyncs). */
async function send(request) {
  if (game.sending) return null;
  game.sending = true;
  game.lifted = null;
  rerender();
  try {
    const state = await request();
    awaitEvents(state);
    return state;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    toast(error.message);
    if (error.status === 409) await resync();
  } finally {
    game.sending = false;
    rerender();
  }
  return null;
}

async function resync() {
  try {
    acceptState(await api.state(game.id));
  } catch (error) {
    if (error instanceof Refusal) toast(error.message);
  }
}

function act(action) {
  return send(() => api.act(game.id, action, game.version));
}

function nextHand() {
  // At a table of people the summary stays up, saying who else is ready, until the deal.
  if (!isPeopleTable()) {
    game.summaryClosedFor = -1;
    closeDialog($("#summary-dialog"));
  }
  return send(() => api.next(game.id, game.version));
}

async function passPicked() {
  const picks = [...game.picks];
  game.picks.clear();
  let version = game.version;
  for (const card of picks) {
    // Each card is its own action, made on the state our previous card produced; stop at the
    // first refusal.
    const state = await send(() => api.act(game.id, card, version));
    if (!state) break;
    version = state.version;
  }
}

async function showHint(hint) {
  const fromServer = hint || await api.hint(game.id).catch((error) => {
    if (error instanceof Refusal) toast(error.message);
    return null;
  });
  if (!fromServer) return;
  game.hint = { action: fromServer.action, text: fromServer.text, version: game.version };
  announce(`Hint: ${fromServer.text}`);
  rerender();
}

/** What the input module may ask of the page. */
const inputPage = {
  view: () => (game.shown && !$("#table").hidden ? game.shown : null),
  lifted: () => game.lifted,
  lift(code) {
    game.lifted = code;
    rerender();
  },
  play: (code) => act(code),
  pick(code) {
    const need = cardsToPass(game.shown);
    if (game.picks.has(code)) game.picks.delete(code);
    else if (game.picks.size < need) game.picks.add(code);
    rerender();
    if (game.picks.size === need) $("#exchange-send").focus();
  },
  explain,
  bid(action) {
    const button = document.querySelector(`#bid-grid button[data-action="${action}"]`);
    if (!button || button.disabled) {
      toast(action === "nil" ? "Nil is not open to you now." : `You cannot ${action} now.`);
      return;
    }
    act(action);
  },
  canBid: () => Boolean(game.shown) && !$("#bid-panel").hidden,
  say: toast,
};

// ---------------------------------------------------------------- settings

function paceMessage() {
  return { type: "pace", pace: settings.speed() };
}

// ---------------------------------------------------------------- new game and pages

async function openNewGame() {
  closeDialog($("#over-dialog"));
  await loadPresets();
  $("#new-game-error").hidden = true;
  openDialog($("#new-game-dialog"));
}

async function startNewGame(event) {
  event.preventDefault();
  const form = $("#new-game-form");
  const level = form.elements.level.value || "normal";
  const start = $("#new-game-start");
  start.disabled = true;
  try {
    const created = await api.create({ level, rules: rulesFromForm() });
    closeDialog($("#new-game-dialog"));
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

/** The home page; ``joinCode``: it came from a /join/{code} link (the lobby joins). */
function showHome(joinCode = null) {
  if (game.socket) game.socket.close();
  game.socket = null;
  showHomePage();
  showLobby(joinCode);
}

async function enterGame(id, initial) {
  if (game.socket) game.socket.close();
  resetOnline();
  Object.assign(game, {
    id, version: 0, shown: null, queue: [], hint: null, picks: new Set(), lifted: null,
    summaryClosedFor: -1, overClosed: false, awaitVersion: 0, names: {},
  });
  $("#home").hidden = true;
  $("#table").hidden = false;
  document.body.dataset.page = "table";
  document.title = "Varaq · Table";
  $("#record-link").href = api.recordUrl(id);
  for (const link of [$("#review-link"), $("#over-review")]) link.dataset.table = id;
  try {
    acceptState(initial || await api.state(id));
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
  game.socket = new GameSocket(id, {
    version: () => game.version,
    // At a table of people the speed is the table's: sent only when someone changes it.
    greeting: () => (isPeopleTable() ? [] : [paceMessage()]),
    onMessage: onSocketMessage,
    onStatus: onSocketStatus,
  });
  game.socket.open();
}

function route() {
  const match = location.pathname.match(/^\/play\/([A-Za-z0-9_-]+)\/?$/);
  const join = location.pathname.match(/^\/join\/([A-Za-z0-9_-]+)\/?$/);
  if (match) enterGame(match[1]);
  else showHome(join ? join[1] : null);
}

function toggleMore(open) {
  const button = $("#more-button");
  const next = open === undefined ? button.getAttribute("aria-expanded") !== "true" : open;
  button.setAttribute("aria-expanded", String(next));
  $("#more-menu").classList.toggle("open", next);
}

function closeSummary() {
  game.summaryClosedFor = game.shown && !$("#next-hand").hidden ? game.shown.history.length
    : game.summaryClosedFor;
  setTimeout(rerender);
}

function wire() {
  settings.wireSettings({
    sound,
    onSpeed: () => { if (game.socket && !isWatching()) game.socket.send(paceMessage()); },
  });
  buildFelt($("#felt"));
  buildBidGrid($("#bid-grid"), (action) => act(action));
  wireLobby({ enterGame });
  wireOnline({
    id: () => game.id,
    send,
    rerender,
    shown: () => game.shown,
    home: () => {
      history.pushState({}, "", "/");
      showHome();
    },
    enter: (id, state) => {
      history.pushState({}, "", `/play/${id}`);
      enterGame(id, state);
    },
  });
  $("#new-game").addEventListener("click", openNewGame);
  $("#over-new-game").addEventListener("click", openNewGame);
  $("#new-game-form").addEventListener("submit", startNewGame);
  $("#new-game-cancel").addEventListener("click", () => closeDialog($("#new-game-dialog")));
  $("#preset-select").addEventListener("change", fillCustom);
  $("#custom-toggle").addEventListener("change", (e) => { $("#custom-rules").hidden = !e.target.checked; });
  $("#summary-close").addEventListener("click", () => {
    closeSummary();
    closeDialog($("#summary-dialog"));
  });
  $("#summary-dialog").addEventListener("cancel", closeSummary);
  $("#over-dialog").addEventListener("close", () => { game.overClosed = true; rerender(); });
  $("#next-hand").addEventListener("click", nextHand);
  $("#last-trick-button").addEventListener("click", () => {
    if (game.shown) {
      showLastTrick(game.shown, game.seating);
      markLastTrick();
    }
  });
  $("#last-trick-close").addEventListener("click", () => closeDialog($("#last-trick-dialog")));
  $("#scores-button").addEventListener("click", () => {
    if (game.shown) showScores(game.shown, game.seating);
  });
  $("#rules-button").addEventListener("click", () => {
    if (game.shown) showRules(game.shown);
  });
  $("#rules-close").addEventListener("click", () => closeDialog($("#rules-dialog")));
  $("#hint-button").addEventListener("click", () => showHint(null));
  $("#more-button").addEventListener("click", () => toggleMore());
  $("#concede-button").addEventListener("click", () => {
    toggleMore(false);
    askConcede(game.seating);
    if (concedeNeedsPartner(game.seating)) {
      const seating = game.seating;
      $("#concede-text").textContent = `${seating.name(seating.seatAt("top"))} must agree: then ${
        seating.sideName(seating.theirSide)} win at once.`;
    }
  });
  $("#concede-cancel").addEventListener("click", () => closeDialog($("#concede-dialog")));
  $("#concede-confirm").addEventListener("click", async () => {
    closeDialog($("#concede-dialog"));
    conceded(await send(() => api.concede(game.id)));
  });
  $("#exchange-send").addEventListener("click", passPicked);
  for (const button of document.querySelectorAll("#blind-panel [data-action]")) {
    button.addEventListener("click", () => act(button.dataset.action));
  }
  attachInput({ hand: $("#hand"), trick: $("#trick"), page: inputPage });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !anyDialogOpen()) toggleMore(false);
  });
  // The "More" menu (phones) closes when the player taps anywhere else.
  document.addEventListener("click", (event) => {
    if (!event.target.closest(".controls")) toggleMore(false);
  });
  window.addEventListener("popstate", route);
}

wire();
route();
