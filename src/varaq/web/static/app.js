// The table page: draws South's view, animates the server's events one by one, and turns
// clicks, taps, drags and keys into intentions sent to the server.
//
// The client never decides a rule. Every control it enables comes from ``view.legal``; an
// action the server refuses shows the server's own one-line reason, and nothing changes.

import { api, GameSocket, Refusal } from "./connection.js";
import { SEAT_WORDS, cardBack, cardName, cardPicture, drawFace } from "./cards.js";
import { fillCustom, loadPresets, rulesFromForm } from "./newgame.js";
import {
  cell, handHeadline, historyTable, runningTotals, summaryTable,
} from "./scoresheet.js";
import { bidWords, eventWords } from "./words.js";

const $ = (selector) => document.querySelector(selector);
const SEATS = ["N", "E", "S", "W"];
const SIDE_SEATS = { NS: ["N", "S"], EW: ["E", "W"] };
const DEFAULT_NAMES = { N: "Partner", E: "East", S: "You", W: "West" };

// "?fast" (kept for the tab's session) shortens the animations: the browser tests use it.
if (new URLSearchParams(location.search).has("fast")) sessionStorage.setItem("varaq-fast", "1");
const FAST = sessionStorage.getItem("varaq-fast") === "1";
const REDUCED_MOTION = matchMedia("(prefers-reduced-motion: reduce)").matches;
const PACE = {
  card: FAST ? 40 : REDUCED_MOTION ? 150 : 330,
  bid: FAST ? 20 : 260,
  trick: FAST ? 160 : 1100,
  collect: FAST ? 60 : 320,
};

const game = {
  id: null,
  /** The newest version received (shown or waiting in the queue). */
  version: 0,
  /** The view on screen, which lags ``version`` while events are being animated. */
  shown: null,
  names: { ...DEFAULT_NAMES },
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
  bidDigits: "",
  bidTimer: null,
  lastPointer: "mouse",
  /** The version at which "your turn" was last announced. */
  turnAnnounced: -1,
  drag: null,
  suppressClickUntil: 0,
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- words

function nameOf(seat) {
  return game.names[seat] || SEAT_WORDS[seat];
}

function announce(text) {
  if (!text) return;
  const region = $("#announcer");
  const line = document.createElement("p");
  line.textContent = text;
  region.append(line);
  while (region.childElementCount > 12) region.firstElementChild.remove();
}

let toastTimer = null;
function toast(text) {
  const box = $("#toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 5000);
}

// ---------------------------------------------------------------- theme

function applyTheme(theme) {
  if (theme) document.documentElement.dataset.theme = theme;
  const dark = effectiveTheme() === "dark";
  $("#theme-toggle").setAttribute("aria-label", dark ? "Switch to light theme" : "Switch to dark theme");
}

function effectiveTheme() {
  const chosen = document.documentElement.dataset.theme;
  if (chosen) return chosen;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function toggleTheme() {
  const next = effectiveTheme() === "dark" ? "light" : "dark";
  localStorage.setItem("varaq-theme", next);
  applyTheme(next);
}

// ---------------------------------------------------------------- rendering

function legalSet(view) {
  return new Set(game.animating || game.queue.length || waiting() ? [] : view.legal);
}

function waiting() {
  return game.sending || game.version < game.awaitVersion;
}

function sideContract(view, side) {
  const bids = SIDE_SEATS[side].map((s) => view.bids[s]);
  if (bids.some((b) => b === null)) return null;
  const contract = bids.reduce((sum, b) => sum + (typeof b === "number" ? b : 0), 0);
  const won = SIDE_SEATS[side]
    .filter((s) => typeof view.bids[s] === "number" && view.bids[s] > 0)
    .reduce((sum, s) => sum + view.taken[s], 0);
  return { contract, won };
}

function renderScorebar(view) {
  for (const side of ["NS", "EW"]) {
    const box = $(`#side-${side}`);
    box.querySelector("[data-total]").textContent = String(view.totals[side]);
    const c = view.phase === "play" || view.phase === "exchange" ? sideContract(view, side) : null;
    const bidding = view.phase === "bid" || view.phase === "blind";
    box.querySelector("[data-contract]").textContent = c
      ? (c.contract ? `Contract ${c.contract} · won ${c.won}` : "Nil only")
      : bidding ? "Bidding…" : "—";
    const limit = view.bag_limit || 10;
    const bags = view.bags[side];
    const penaltyOn = !(view.badges || []).includes("No bag penalty");
    const close = penaltyOn && bags >= limit - 3;
    box.querySelector("[data-bags-text]").textContent = !penaltyOn ? `Bags ${bags}`
      : close ? `Bags ${bags}/${limit} · ${limit - bags} to penalty` : `Bags ${bags}/${limit}`;
    const fill = box.querySelector("[data-bags-fill]");
    fill.style.width = `${Math.min(100, (100 * bags) / limit)}%`;
    box.querySelector("[data-bags]").classList.toggle("danger", penaltyOn && bags >= limit - 2);
    box.querySelector("[data-bags]").title = penaltyOn
      ? `${limit - bags} more bag${limit - bags === 1 ? "" : "s"} before the penalty`
      : "Bags";
    box.classList.toggle("leading", view.totals[side] > view.totals[side === "NS" ? "EW" : "NS"]);
  }
  $("#target").textContent = `Target ${view.target}`;
  $("#hand-no").textContent = `Hand ${view.hand_no || 1}`;
  $("#broken").hidden = !(view.phase === "play" && view.broken);
  const badges = $("#badges");
  const text = (view.badges || []).join("|");
  if (badges.dataset.text !== text) {
    badges.dataset.text = text;
    badges.replaceChildren(...(view.badges || []).map((b) => {
      const li = document.createElement("li");
      li.textContent = b;
      return li;
    }));
  }
}

function renderSeats(view) {
  for (const seat of SEATS) {
    const box = $(`#seat-${seat}`);
    box.querySelector(".seat-name").textContent = nameOf(seat);
    const bid = view.bids[seat];
    const bidBox = box.querySelector(".seat-bid");
    bidBox.textContent = bidWords(bid);
    bidBox.classList.toggle("nil", bid === 0 || bid === "blind");
    bidBox.classList.toggle("pending", bid === null);
    const taken = box.querySelector(".seat-taken");
    taken.textContent = `${view.taken[seat]} ${view.taken[seat] === 1 ? "trick" : "tricks"}`;
    box.querySelector(".seat-dealer").hidden = view.dealer !== seat;
    box.classList.toggle("turn", view.turn === seat);
    const backs = box.querySelector(".seat-backs");
    if (backs) {
      const n = view.cards_left[seat];
      if (backs.childElementCount !== n) {
        backs.replaceChildren(...Array.from({ length: n }, () => cardBack()));
      }
    }
  }
}

/** Put the trick's cards in their slots; a card new to its slot slides in from its seat. */
function renderTrick(cards, winner) {
  const bySeat = Object.fromEntries(cards.map((c) => [c.seat, c.card]));
  for (const seat of SEATS) {
    const slot = document.querySelector(`.trick-slot[data-slot="${seat}"]`);
    const card = bySeat[seat] || "";
    if (slot.dataset.card !== card) {
      slot.dataset.card = card;
      slot.replaceChildren();
      if (card) {
        const picture = cardPicture(card);
        picture.classList.add("arrive", `from-${seat}`);
        slot.append(picture);
      }
    }
    slot.classList.toggle("winner", Boolean(winner) && winner === seat && Boolean(card));
  }
  $("#trick").classList.remove("collect-N", "collect-E", "collect-S", "collect-W");
}

function statusText(view) {
  const mine = view.turn === "S";
  const turnName = view.turn ? nameOf(view.turn) : "";
  switch (view.phase) {
    case "blind":
      return mine ? "Blind nil, or look at your cards?" : `${turnName} is thinking about blind nil…`;
    case "bid":
      return mine ? "Your bid." : `${turnName} is bidding…`;
    case "exchange":
      return mine ? "The blind nil exchange." : `${turnName} is choosing cards to pass…`;
    case "play":
      if (!mine) return `${turnName} to play…`;
      return view.trick.length ? "Your turn — follow suit if you can." : "Your lead.";
    case "deal":
      return view.history.length ? "Hand over." : "Ready to deal.";
    case "over":
      return "Match over.";
    default:
      return "";
  }
}

function partnerOf(seat) {
  return SEATS[(SEATS.indexOf(seat) + 2) % 4];
}

/** Cards to pass in a blind nil exchange, as the server's view states it. */
function exchangeSize(view) {
  return view.exchange || 0;
}

function renderPanel(view, legal) {
  const mine = view.turn === "S";
  const status = $("#status");
  status.replaceChildren(document.createTextNode(statusText(view)));
  if (game.hint && game.hint.version === game.version) {
    const hint = document.createElement("span");
    hint.className = "hint-text";
    hint.textContent = ` Hint: ${game.hint.text}`;
    status.append(hint);
  }
  if (view.phase === "deal" && game.summaryClosedFor === view.history.length) {
    status.append(" ", panelButton(view.history.length ? "Next hand" : "Deal", nextHand));
  }
  if (view.phase === "deal" && !view.history.length) {
    status.append(" ", panelButton("Deal", nextHand));
  }
  if (view.phase === "over" && game.overClosed) {
    status.append(" ", panelButton("New game", openNewGame));
  }

  $("#blind-panel").hidden = !(view.phase === "blind" && mine && view.cards_hidden);
  for (const button of document.querySelectorAll("#blind-panel [data-action]")) {
    button.disabled = !legal.has(button.dataset.action);
  }
  $("#blind-worth").textContent = blindWorth(view);

  const bidding = view.phase === "bid" && mine;
  $("#bid-panel").hidden = !bidding;
  for (const button of document.querySelectorAll("#bid-grid button")) {
    button.disabled = !legal.has(button.dataset.action);
    button.classList.toggle("hinted", Boolean(game.hint && game.hint.version === game.version
      && game.hint.action === button.dataset.action));
  }

  const exchanging = view.phase === "exchange" && mine;
  $("#exchange-panel").hidden = !exchanging;
  if (exchanging) {
    const size = exchangeSize(view);
    const already = (view.passing || []).length;
    const need = size - already;
    $("#exchange-prompt").textContent =
      `Pick ${need} card${need === 1 ? "" : "s"} to pass to ${nameOf(partnerOf("S"))}.`;
    const send = $("#exchange-send");
    send.disabled = game.picks.size !== need || waiting();
    send.textContent = `Pass ${need} card${need === 1 ? "" : "s"}`;
  } else {
    game.picks.clear();
  }
}

function blindWorth(view) {
  const badge = (view.badges || []).find((b) => b.startsWith("Blind nil ±"));
  const worth = badge ? badge.slice("Blind nil ±".length) : "200";
  return `It is worth ±${worth}; looking keeps ordinary nil open.`;
}

function panelButton(text, handler) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "primary small";
  button.textContent = text;
  button.addEventListener("click", handler);
  return button;
}

/** Lay out the hand as a fan; keep the buttons (and keyboard focus) when the cards are the same. */
function renderHand(view, legal) {
  const hand = $("#hand");
  const hidden = view.cards_hidden;
  const cards = hidden ? Array.from({ length: view.cards_left.S }, () => "back") : view.hand;
  const key = cards.join(" ");
  const focused = document.activeElement && hand.contains(document.activeElement)
    ? document.activeElement.dataset.card : null;
  const focusIndex = focused ? [...hand.children].findIndex((b) => b.dataset.card === focused) : -1;
  if (hand.dataset.key !== key) {
    // A new deal (or the first look at a blind nil hand): the cards fly in one by one.
    const fresh = cards.length >= 13 && !(hand.dataset.key || "").split(" ").some((c) =>
      cards.includes(c));
    hand.dataset.key = key;
    hand.replaceChildren(...cards.map((code, i) => {
      const node = code === "back" ? cardBack() : document.createElement("button");
      if (code !== "back") {
        node.type = "button";
        drawFace(node, code);
        node.setAttribute("aria-label", cardName(code));
      }
      if (fresh && !FAST) {
        node.classList.add("dealt");
        node.style.animationDelay = `${i * 35}ms`;
      }
      return node;
    }));
    game.lifted = cards.includes(game.lifted) ? game.lifted : null;
  }
  const n = hand.childElementCount;
  hand.style.setProperty("--n", String(Math.max(n, 1)));
  const exchanging = view.phase === "exchange";
  const passed = new Set(view.passing || []);
  [...hand.children].forEach((node, i) => {
    const offset = i - (n - 1) / 2;
    node.style.setProperty("--rot", `${(offset * 1.5).toFixed(2)}deg`);
    node.style.setProperty("--arc", `${(offset * offset * 0.4).toFixed(1)}px`);
    if (node.tagName !== "BUTTON") return;
    const code = node.dataset.card;
    const playable = legal.has(code) && !passed.has(code);
    node.disabled = !playable;
    node.classList.toggle("playable", playable);
    node.classList.toggle("lifted", game.lifted === code && playable);
    node.classList.toggle("picked", exchanging && game.picks.has(code));
    node.classList.toggle("passing", passed.has(code));
    node.classList.toggle("received", (view.received || []).includes(code));
    node.classList.toggle("hinted", Boolean(game.hint && game.hint.version === game.version
      && game.hint.action === code));
  });
  hand.classList.toggle("my-turn", legal.size > 0 && view.phase === "play");
  hand.classList.toggle("hidden-cards", hidden);
  // Keyboard players keep their place: focus stays on the same card, or moves to a neighbour.
  const active = document.activeElement;
  const lostFocus = !active || active === document.body || (focused && !hand.contains(active));
  if (focused && lostFocus) focusCard(Math.max(0, Math.min(focusIndex, n - 1)));
}

function focusCard(index) {
  const buttons = [...document.querySelectorAll("#hand button")];
  const enabled = buttons.filter((b) => !b.disabled);
  if (!enabled.length) return;
  const target = buttons[index] && !buttons[index].disabled
    ? buttons[index]
    : enabled.reduce((best, b) =>
      Math.abs(buttons.indexOf(b) - index) < Math.abs(buttons.indexOf(best) - index) ? b : best);
  target.focus();
}

function render(view, { trickOverride = null } = {}) {
  game.shown = view;
  const legal = legalSet(view);
  renderScorebar(view);
  renderSeats(view);
  if (trickOverride) {
    const cards = trickOverride.cards.map((card, i) => ({
      seat: SEATS[(SEATS.indexOf(trickOverride.leader) + i) % 4], card,
    }));
    renderTrick(cards, trickOverride.winner);
  } else {
    renderTrick(view.trick, null);
  }
  renderPanel(view, legal);
  renderHand(view, legal);
  $("#last-trick-button").disabled = !view.tricks.length;
  $("#concede-button").disabled = view.phase === "over";
  $("#hint-button").disabled = legal.size === 0;
  $("#table").dataset.phase = view.phase;
  $("#table").dataset.turn = view.turn || "";
  $("#table").dataset.busy = legal.size === 0 && view.turn === "S" ? "true" : "false";
  const myMove = legal.size > 0;
  document.title = `${myMove ? "● Your turn · " : ""}Varaq · Us ${view.totals.NS} – Them ${
    view.totals.EW}`;
  if (myMove && game.turnAnnounced !== game.version) {
    // Once per position, so a screen reader hears when the table waits for South.
    game.turnAnnounced = game.version;
    announce(statusText(view));
  }
  if (!game.animating && !game.queue.length) showDialogsFor(view);
}

function rerender() {
  if (game.shown) render(game.shown);
}

// ---------------------------------------------------------------- hand summary and match end

function openDialog(dialog) {
  if (!dialog.open) dialog.showModal();
}

function closeDialog(dialog) {
  if (dialog.open) dialog.close();
}

function showDialogsFor(view) {
  const summary = $("#summary-dialog");
  const over = $("#over-dialog");
  if (view.phase === "deal" && view.history.length
      && game.summaryClosedFor !== view.history.length) {
    const hand = view.history[view.history.length - 1];
    const totals = runningTotals(view)[view.history.length - 1];
    $("#summary-title").textContent = `Hand ${view.history.length} — ${handHeadline(hand)}`;
    $("#summary-body").replaceChildren(summaryTable(hand, totals, nameOf));
    historyTable(view, $("#history-table"));
    if (!summary.open) {
      openDialog(summary);
      $("#next-hand").focus();
    }
  } else {
    closeDialog(summary);
  }
  if (view.phase === "over" && !game.overClosed) {
    const weWon = view.winner === "NS";
    const banner = $("#over-banner");
    banner.textContent = weWon ? "♠ ♥ ♣ ♦" : "♦ ♣ ♥ ♠";
    banner.className = `over-banner ${weWon ? "won" : "lost"}`;
    $("#over-title").textContent = view.conceded === "NS"
      ? "You conceded — East and West win"
      : weWon ? "You and your partner win!" : "East and West win the match";
    $("#over-score").textContent = `Us ${view.totals.NS} · Them ${view.totals.EW}`;
    const hand = view.history[view.history.length - 1];
    const body = $("#over-body");
    if (hand && view.conceded === null) {
      body.replaceChildren(summaryTable(hand, runningTotals(view)[view.history.length - 1], nameOf));
    } else {
      body.replaceChildren();
    }
    historyTable(view, $("#over-history"));
    $("#over-history").hidden = !view.history.length;
    $("#over-record").href = api.recordUrl(game.id);
    if (!over.open) {
      openDialog(over);
      $("#over-new-game").focus();
    }
  } else {
    closeDialog(over);
  }
}

// ---------------------------------------------------------------- events from the server

function acceptState(state) {
  if (state.names) game.names = { ...DEFAULT_NAMES, ...state.names };
  // ``resync``: the server never had our version (say, a database restored from a backup).
  if (game.shown && state.version <= game.version && !state.resync) return;
  const previous = game.version;
  game.version = state.version;
  game.queue = [];
  game.generation += 1;
  const missed = (state.events || []).filter((e) => e.version > previous);
  if (previous && missed.length) announce(missed.map((e) => eventWords(e, state.view, nameOf)).join(" "));
  render(state.view);
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
      pump();
      break;
    case "error":
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
      announce(eventWords(event, view, nameOf));
      if (event.kind === "play" && event.trick) {
        render(view, { trickOverride: event.trick });
        await sleep(PACE.trick);
        if (!current()) break;
        $("#trick").classList.add(`collect-${event.trick.winner}`);
        await sleep(PACE.collect);
        if (!current()) break;
        render(view);
      } else {
        render(view);
        await sleep(event.kind === "play" ? PACE.card : PACE.bid);
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
  if (game.sending) return;
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
  game.summaryClosedFor = -1;
  closeDialog($("#summary-dialog"));
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

// ---------------------------------------------------------------- input: cards

function onCardClick(event) {
  const button = event.target.closest("#hand button");
  if (!button || button.disabled) return;
  if (performance.now() < game.suppressClickUntil) return;
  const code = button.dataset.card;
  const view = game.shown;
  if (view.phase === "exchange") {
    const need = exchangeSize(view) - (view.passing || []).length;
    if (game.picks.has(code)) game.picks.delete(code);
    else if (game.picks.size < need) game.picks.add(code);
    rerender();
    if (game.picks.size === need) $("#exchange-send").focus();
    return;
  }
  const keyboard = event.detail === 0;
  const touch = game.lastPointer === "touch" || game.lastPointer === "pen";
  if (!keyboard && touch && game.lifted !== code) {
    game.lifted = code;
    rerender();
    return;
  }
  act(code);
}

function onHandPointerDown(event) {
  game.lastPointer = event.pointerType || "mouse";
  const button = event.target.closest("#hand button");
  if (!button || button.disabled || game.shown.phase !== "play") return;
  game.drag = { button, x: event.clientX, y: event.clientY, moved: false, id: event.pointerId };
}

function onPointerMove(event) {
  const drag = game.drag;
  if (!drag || drag.id !== event.pointerId) return;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < 12) return;
  if (!drag.moved) {
    drag.moved = true;
    drag.button.classList.add("dragging");
    $("#trick").classList.add("drop-target");
  }
  drag.button.style.setProperty("--drag-x", `${dx}px`);
  drag.button.style.setProperty("--drag-y", `${dy}px`);
  event.preventDefault();
}

function onPointerUp(event) {
  const drag = game.drag;
  if (!drag || drag.id !== event.pointerId) return;
  game.drag = null;
  $("#trick").classList.remove("drop-target");
  if (!drag.moved) return;
  game.suppressClickUntil = performance.now() + 400;
  drag.button.classList.remove("dragging");
  drag.button.style.removeProperty("--drag-x");
  drag.button.style.removeProperty("--drag-y");
  const area = $("#trick").getBoundingClientRect();
  const inside = event.clientX >= area.left && event.clientX <= area.right
    && event.clientY >= area.top && event.clientY <= area.bottom;
  if (inside && event.type === "pointerup") act(drag.button.dataset.card);
}

// ---------------------------------------------------------------- input: keyboard

function anyDialogOpen() {
  return [...document.querySelectorAll("dialog")].some((d) => d.open);
}

function onKeyDown(event) {
  if (anyDialogOpen() || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return;
  const view = game.shown;
  if (!view || $("#table").hidden) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    const buttons = [...document.querySelectorAll("#hand button:not([disabled])")];
    if (!buttons.length) return;
    event.preventDefault();
    const at = buttons.indexOf(document.activeElement);
    const step = event.key === "ArrowRight" ? 1 : -1;
    const next = at < 0 ? (step > 0 ? 0 : buttons.length - 1)
      : (at + step + buttons.length) % buttons.length;
    buttons[next].focus();
    return;
  }
  if (view.phase === "bid" && view.turn === "S" && !$("#bid-panel").hidden) {
    if (/^[0-9]$/.test(event.key)) {
      event.preventDefault();
      typeBidDigit(event.key);
    } else if (event.key === "n" || event.key === "N") {
      event.preventDefault();
      submitBid("nil");
    } else if (event.key === "Enter" && game.bidDigits) {
      event.preventDefault();
      flushBidDigits();
    }
  }
}

/** "4" bids 4 at once; "1" waits a moment for a second digit (10–13). "0" is nil. */
function typeBidDigit(digit) {
  clearTimeout(game.bidTimer);
  game.bidDigits += digit;
  const n = Number(game.bidDigits);
  if (game.bidDigits === "1") {
    game.bidTimer = setTimeout(flushBidDigits, 900);
    return;
  }
  if (n > 13) {
    toast(`Bids go from 0 (nil) to 13, not ${n}.`);
    game.bidDigits = "";
    return;
  }
  flushBidDigits();
}

function flushBidDigits() {
  clearTimeout(game.bidTimer);
  const n = Number(game.bidDigits);
  game.bidDigits = "";
  submitBid(n === 0 ? "nil" : `bid ${n}`);
}

function submitBid(action) {
  const button = document.querySelector(`#bid-grid button[data-action="${action}"]`);
  if (!button || button.disabled) {
    toast(action === "nil" ? "Nil is not open to you now." : `You cannot ${action} now.`);
    return;
  }
  act(action);
}

// ---------------------------------------------------------------- dialogs and buttons

function showLastTrick() {
  const view = game.shown;
  const trick = view && view.tricks[view.tricks.length - 1];
  if (!trick) return;
  const body = $("#last-trick-body");
  body.replaceChildren(...trick.cards.map((card, i) => {
    const seat = SEATS[(SEATS.indexOf(trick.leader) + i) % 4];
    const figure = document.createElement("figure");
    figure.className = seat === trick.winner ? "won" : "";
    figure.append(cardPicture(card));
    const caption = cell("figcaption", `${nameOf(seat)}${i === 0 ? " (led)" : ""}`);
    if (seat === trick.winner) caption.append(cell("strong", " — won"));
    figure.append(caption);
    return figure;
  }));
  openDialog($("#last-trick-dialog"));
}

function buildBidGrid() {
  const grid = $("#bid-grid");
  const buttons = [];
  for (let n = 0; n <= 13; n++) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = n === 0 ? "bid nil" : "bid";
    button.dataset.action = n === 0 ? "nil" : `bid ${n}`;
    button.textContent = n === 0 ? "Nil" : String(n);
    button.setAttribute("aria-label", n === 0 ? "Nil" : `Bid ${n}`);
    button.addEventListener("click", () => act(button.dataset.action));
    buttons.push(button);
  }
  grid.replaceChildren(...buttons);
}

// ---------------------------------------------------------------- new game

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

// ---------------------------------------------------------------- pages

function showHome() {
  const hero = $("#hero-cards");
  if (!hero.childElementCount) hero.append(...["AH", "AS", "KD"].map((code) => cardPicture(code)));
  if (game.socket) game.socket.close();
  game.socket = null;
  $("#home").hidden = false;
  $("#table").hidden = true;
  document.title = "Varaq · Spades";
  const saved = localStorage.getItem("varaq-game");
  const link = $("#resume-link");
  link.hidden = !saved;
  if (saved) link.href = `/play/${saved}`;
}

async function enterGame(id, initial) {
  if (game.socket) game.socket.close();
  Object.assign(game, {
    id, version: 0, shown: null, queue: [], hint: null, picks: new Set(), lifted: null,
    summaryClosedFor: -1, overClosed: false, awaitVersion: 0, names: { ...DEFAULT_NAMES },
  });
  $("#home").hidden = true;
  $("#table").hidden = false;
  document.title = "Varaq · Table";
  $("#record-link").href = api.recordUrl(id);
  try {
    acceptState(initial || await api.state(id));
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    if (error.status === 404) {
      localStorage.removeItem("varaq-game");
      history.replaceState({}, "", "/");
      showHome();
    }
    toast(error.message);
    if (error.status === 404) return;
  }
  localStorage.setItem("varaq-game", id);
  game.socket = new GameSocket(id, {
    version: () => game.version,
    onMessage: onSocketMessage,
    onStatus: onSocketStatus,
  });
  game.socket.open();
}

function route() {
  const match = location.pathname.match(/^\/play\/([A-Za-z0-9_-]+)\/?$/);
  if (match) enterGame(match[1]);
  else showHome();
}

function wire() {
  applyTheme(localStorage.getItem("varaq-theme"));
  $("#theme-toggle").addEventListener("click", toggleTheme);
  $("#new-game").addEventListener("click", openNewGame);
  $("#over-new-game").addEventListener("click", openNewGame);
  $("#new-game-form").addEventListener("submit", startNewGame);
  $("#new-game-cancel").addEventListener("click", () => closeDialog($("#new-game-dialog")));
  $("#preset-select").addEventListener("change", fillCustom);
  $("#custom-toggle").addEventListener("change", (e) => { $("#custom-rules").hidden = !e.target.checked; });
  $("#summary-close").addEventListener("click", () => {
    game.summaryClosedFor = game.shown ? game.shown.history.length : -1;
    closeDialog($("#summary-dialog"));
    rerender();
  });
  $("#summary-dialog").addEventListener("cancel", () => {
    game.summaryClosedFor = game.shown ? game.shown.history.length : -1;
    setTimeout(rerender);
  });
  $("#over-dialog").addEventListener("close", () => { game.overClosed = true; rerender(); });
  $("#next-hand").addEventListener("click", nextHand);
  $("#last-trick-button").addEventListener("click", showLastTrick);
  $("#last-trick-close").addEventListener("click", () => closeDialog($("#last-trick-dialog")));
  $("#scores-button").addEventListener("click", () => {
    if (!game.shown) return;
    historyTable(game.shown, $("#history-table"));
    $("#summary-title").textContent = "Scores";
    $("#summary-body").replaceChildren();
    $("#next-hand").hidden = true;
    openDialog($("#summary-dialog"));
    $("#summary-dialog").addEventListener("close", () => { $("#next-hand").hidden = false; },
      { once: true });
  });
  $("#hint-button").addEventListener("click", () => showHint(null));
  $("#concede-button").addEventListener("click", () => openDialog($("#concede-dialog")));
  $("#concede-cancel").addEventListener("click", () => closeDialog($("#concede-dialog")));
  $("#concede-confirm").addEventListener("click", () => {
    closeDialog($("#concede-dialog"));
    send(() => api.concede(game.id));
  });
  $("#exchange-send").addEventListener("click", passPicked);
  for (const button of document.querySelectorAll("#blind-panel [data-action]")) {
    button.addEventListener("click", () => act(button.dataset.action));
  }
  const hand = $("#hand");
  hand.addEventListener("click", onCardClick);
  hand.addEventListener("pointerdown", onHandPointerDown);
  window.addEventListener("pointermove", onPointerMove, { passive: false });
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", onPointerUp);
  document.addEventListener("keydown", onKeyDown);
  window.addEventListener("popstate", route);
  buildBidGrid();
}

wire();
route();
