// The online lobby on the home page: everything a signed-in person does before sitting at a
// table of people. Open a table (the host's dialog), join one by its code or by a /join/{code}
// link, or wait in the quick-match queue until four people (or people and computer players)
// can sit down. Each way ends on the table page, /play/{id}, which shows the seating.
// Anyone, signed in or not, also sees Live tables: the public tables being played or seating,
// each with a Watch link that opens it as a watcher.
//
// The server keeps the queue, the codes and the seats; the page only asks and shows. Its
// refusals (a wrong code, a full table, too many tries) are shown as they come, in one line.

import { focusSignIn, loadAccount, signedIn, wireAccount } from "./account.js";
import { api, Refusal } from "./connection.js";
import { closeDialog, openDialog } from "./dialogs.js";
import { RulesPicker, rulesFieldset } from "./newgame.js";
import { announce } from "./notices.js";
import { el } from "./pages.js";

const $ = (selector) => document.querySelector(selector);

const BOTS_KEY = "varaq-quick-bots";
/** How often the waiting page asks the server for the queue (the seconds tick locally). */
const QUICK_POLL_MS = 2000;
/** How often the home page asks for the Live tables while it is shown. */
const LIVE_POLL_MS = 5000;

const lobby = {
  /** app.js's ``enterGame(id, state)``: shows the table page for a table. */
  enterGame: null,
  /** The code of a /join/{code} link, kept until the person has signed in. */
  pendingCode: null,
  /** The "Open a table" dialog and its rules, built the first time it opens. */
  dialog: null,
  picker: null,
};

const quick = {
  /** Seconds waited at the last answer, and when (performance.now()) it came. */
  waited: 0,
  at: 0,
  queue: 0,
  botsAfter: null,
  tick: null,
  poll: null,
  /** Bumped by every request about the queue: only the newest answer is shown. */
  asked: 0,
};

const live = {
  poll: null,
  /** Bumped by every request for the list: only the newest answer is shown. */
  asked: 0,
};

const homeShown = () => !$("#home").hidden;

/** A code as the host reads it out: capitals, without the spaces and dashes people type. */
function cleanCode(text) {
  return String(text || "").toUpperCase().replace(/[\s-]+/g, "");
}

function lobbyError(text) {
  const box = $("#lobby-error");
  box.textContent = text || "";
  box.hidden = !text;
}

/** Leave the home page for a table's page (the table page shows the seating). */
function goToTable(id, state = undefined, { replace = false } = {}) {
  stopQuick();
  stopLive();
  const url = `/play/${encodeURIComponent(id)}`;
  if (replace) history.replaceState({}, "", url);
  else history.pushState({}, "", url);
  lobby.enterGame(id, state);
}

// ---------------------------------------------------------------- joining by code or link

function showJoinNote() {
  const note = $("#join-note");
  const code = lobby.pendingCode;
  note.hidden = !code || signedIn();
  note.textContent = code ? `Sign in or create an account to join table ${code}.` : "";
}

/** ``POST /api/tables/join`` and go to the table; a refusal stays on the home page. */
async function joinByCode(code, { fromLink = false } = {}) {
  lobbyError("");
  const button = $("#join-form button[type=submit]");
  button.disabled = true;
  try {
    const joined = await api.post("/api/tables/join", { code });
    lobby.pendingCode = null;
    goToTable(joined.id, joined.state, { replace: fromLink });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    if (fromLink) {
      // The link did not work: this page is the home page again, with the code to fix.
      lobby.pendingCode = null;
      history.replaceState({}, "", "/");
      showJoinNote();
      $("#join-code").value = cleanCode(code);
    }
    lobbyError(error.message);
    if (error.status === 401) await loadAccount();
  } finally {
    button.disabled = false;
  }
}

function submitJoin(event) {
  event.preventDefault();
  const code = cleanCode($("#join-code").value);
  if (!code) {
    lobbyError("Type the code the host gave you, such as K7WQ3M.");
    $("#join-code").focus();
    return;
  }
  joinByCode(code);
}

// ---------------------------------------------------------------- quick match

function stopQuick() {
  clearInterval(quick.tick);
  clearInterval(quick.poll);
  quick.tick = null;
  quick.poll = null;
}

/** ``42 s``, ``2 min``, ``3 min 05 s``. */
function duration(seconds) {
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  const minutes = `${Math.floor(seconds / 60)} min`;
  return rest ? `${minutes} ${rest < 10 ? "0" : ""}${rest} s` : minutes;
}

function drawQuick() {
  const seconds = Math.max(0, Math.floor(quick.waited + (performance.now() - quick.at) / 1000));
  $("#quick-waited").textContent = duration(seconds);
  // The queue counts the person too.
  $("#quick-queue").textContent = `${quick.queue} in the queue`;
  $("#quick-bots-line").textContent = quick.botsAfter === null
    ? "People only: the table starts when four are here."
    : `If fewer than four are here after ${duration(quick.botsAfter)}, computer players take `
      + "the empty seats.";
}

/** Show ``QUICK``: the waiting panel while waiting, the table once seated. */
function showQuick(doc) {
  if (doc.state === "seated" && doc.table) {
    if (homeShown()) goToTable(doc.table);
    return;
  }
  const waiting = doc.state === "waiting";
  $("#quick-wait").hidden = !waiting;
  $("#quick-idle").hidden = waiting;
  if (!waiting) {
    stopQuick();
    return;
  }
  quick.waited = Number(doc.waited) || 0;
  quick.at = performance.now();
  quick.queue = Number(doc.queue) || 1;
  quick.botsAfter = typeof doc.bots_after === "number" ? Math.round(doc.bots_after) : null;
  drawQuick();
  // The seconds tick here; the server is asked every two seconds for the queue and a seat.
  if (!quick.tick) quick.tick = setInterval(() => (homeShown() ? drawQuick() : stopQuick()), 1000);
  if (!quick.poll) quick.poll = setInterval(pollQuick, QUICK_POLL_MS);
}

/** One request about the queue; its answer is shown unless a newer request was made since. */
async function askQuick(send) {
  const mine = ++quick.asked;
  const doc = await send();
  if (mine === quick.asked) showQuick(doc);
  return doc;
}

async function pollQuick() {
  if (!homeShown() || !signedIn()) {
    stopQuick();
    return;
  }
  try {
    await askQuick(() => api.get("/api/quick"));
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    // Signed out elsewhere: the box shows it. Anything else (the server away): ask again.
    if (error.status === 401) {
      stopQuick();
      await loadAccount();
    }
  }
}

function botsChoice() {
  const value = $("#quick-bots").value;
  try {
    localStorage.setItem(BOTS_KEY, value);
  } catch {
    // No storage: the choice holds for this page.
  }
  return value === "" ? null : Number(value);
}

function restoreBotsChoice() {
  let value = null;
  try {
    value = localStorage.getItem(BOTS_KEY);
  } catch {
    value = null;
  }
  const select = $("#quick-bots");
  if (value !== null && [...select.options].some((o) => o.value === value)) select.value = value;
}

async function joinQuick() {
  lobbyError("");
  const button = $("#quick-join");
  button.disabled = true;
  try {
    await askQuick(() => api.post("/api/quick/join", { bots_after: botsChoice() }));
    announce("You are in the quick-match queue.");
    $("#quick-leave").focus();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    lobbyError(error.message);
  } finally {
    button.disabled = false;
  }
}

async function leaveQuick() {
  lobbyError("");
  try {
    await askQuick(() => api.post("/api/quick/leave"));
    announce("You left the queue.");
    $("#quick-join").focus();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    lobbyError(error.message);
  }
}

/** Before signing out: leave the queue while the server still knows who is asking. */
async function leaveQuickQuietly() {
  if ($("#quick-wait").hidden) return;
  stopQuick();
  await askQuick(() => api.post("/api/quick/leave")).catch(() => null);
}

// ---------------------------------------------------------------- live tables

function stopLive() {
  clearInterval(live.poll);
  live.poll = null;
}

/** A side's two names: ``Ana & Bo``; a computer player is "Computer", an empty chair "open". */
function sideNames(row, seats) {
  return seats.map((letter) => {
    const doc = (row.seats || []).find((d) => d.seat === letter) || {};
    if (doc.kind === "person") return doc.name || "Player";
    return doc.kind === "bot" ? "Computer" : "open seat";
  }).join(" & ");
}

/** What a row says besides the names: the hand and score, or how far the seating got. */
function liveFacts(row) {
  const facts = [];
  if (row.status === "seating") {
    const people = (row.seats || []).filter((d) => d.kind === "person").length;
    facts.push(`Seating · ${people} of 4`);
  } else {
    const score = row.score || {};
    facts.push(`Hand ${Number(row.hand) || 1}`, `${score.NS ?? 0} to ${score.EW ?? 0}`);
  }
  if (typeof row.watchers === "number" && row.watchers > 0) {
    facts.push(row.watchers === 1 ? "1 watching" : `${row.watchers} watching`);
  }
  return facts.join(" · ");
}

function liveItem(row) {
  const item = el("li", row.status === "seating" ? "seating" : "playing");
  const ns = sideNames(row, ["N", "S"]);
  const ew = sideNames(row, ["E", "W"]);
  const who = el("p", "live-who");
  who.append(el("strong", "", ns), " vs ", el("strong", "", ew));
  const facts = el("p", "live-facts", liveFacts(row));
  facts.append(" · ", el("span", "live-badges", (row.badges || []).join(" · ")));
  const watch = el("a", "button secondary small", "Watch");
  watch.href = row.watch || `/play/${encodeURIComponent(row.id)}`;
  watch.setAttribute("aria-label", `Watch ${ns} against ${ew}`);
  const words = el("div", "live-words");
  words.append(who, facts);
  item.append(words, watch);
  return item;
}

function showLive(doc) {
  const rows = Array.isArray(doc && doc.tables) ? doc.tables : [];
  $("#live-tables").replaceChildren(...rows.map(liveItem));
  $("#live-box").hidden = rows.length === 0;
}

/** ``GET /api/live``; a refusal or a server away leaves the last list as it was. */
async function askLive() {
  if (!homeShown()) {
    stopLive();
    return;
  }
  const mine = ++live.asked;
  try {
    const doc = await api.get("/api/live");
    if (mine === live.asked && homeShown()) showLive(doc);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
  }
}

function startLive() {
  stopLive();
  askLive();
  live.poll = setInterval(() => {
    if (document.visibilityState === "visible") askLive();
  }, LIVE_POLL_MS);
}

// ---------------------------------------------------------------- opening a table

function radio(name, value, words, checked = false) {
  const input = document.createElement("input");
  input.type = "radio";
  input.name = name;
  input.value = value;
  input.checked = checked;
  const label = el("label");
  label.append(input, ` ${words}`);
  return label;
}

function buildLevels() {
  const levels = el("fieldset", "levels");
  levels.append(el("legend", "", "Computer players"),
    radio("level", "easy", "Easy"), radio("level", "normal", "Normal", true),
    radio("level", "hard", "Hard"), radio("level", "expert", "Expert"));
  return levels;
}

function buildSeats() {
  const seats = el("fieldset", "seats-fieldset");
  seats.append(el("legend", "", "Seats and time"));
  const fill = document.createElement("input");
  fill.type = "checkbox";
  fill.name = "fill_bots";
  fill.checked = true;
  fill.setAttribute("aria-describedby", "open-table-fill-note");
  const fillLabel = el("label", "check");
  fillLabel.append(fill, " Fill empty seats with bots");
  const note = el("p", "form-hint", "Then you can start once two of you sit, and computer "
    + "players of the strength above take the other seats; without, the table waits for four.");
  note.id = "open-table-fill-note";
  const timer = document.createElement("select");
  timer.name = "turn_timer";
  timer.id = "open-table-timer";
  for (const [value, words] of [["0", "Off"], ["30", "30 s"], ["60", "60 s"]]) {
    const option = el("option", "", words);
    option.value = value;
    timer.append(option);
  }
  const timerLabel = el("label", "field", "Turn timer");
  timerLabel.htmlFor = timer.id;
  timerLabel.append(timer);
  seats.append(fillLabel, note, timerLabel);
  return seats;
}

/** Private (the default: only people with the code) or public (listed under Live tables). */
function buildListing() {
  const listing = el("fieldset", "listing-fieldset");
  listing.append(el("legend", "", "Who can find it"),
    radio("listing", "private", "Private (only people with the code)", true),
    radio("listing", "public", "Public (listed under Live tables)"));
  return listing;
}

/** The "Open a table" dialog, built on first use so that its fields (Preset, Easy…) do not
 *  sit in the page beside the New game dialog's until someone wants them. */
function buildOpenDialog() {
  const dialog = el("dialog", "open-table");
  dialog.id = "open-table-dialog";
  dialog.setAttribute("aria-labelledby", "open-table-title");
  const form = el("form");
  form.id = "open-table-form";
  form.noValidate = true;
  const title = el("h2", "", "Open a table");
  title.id = "open-table-title";
  const lede = el("p", "dialog-lede", "You sit South and host the table. Once it is open, "
    + "send its code or link to the people you want to play with.");
  const rules = rulesFieldset("table-option");
  const error = el("p", "form-error");
  error.setAttribute("role", "alert");
  error.hidden = true;
  const cancel = el("button", "secondary", "Cancel");
  cancel.type = "button";
  cancel.addEventListener("click", () => closeDialog(dialog));
  const submit = el("button", "primary", "Open the table");
  submit.type = "submit";
  const buttons = el("div", "row end");
  buttons.append(cancel, submit);
  form.append(title, lede, buildLevels(), rules.fieldset, buildSeats(), buildListing(), error,
    buttons);
  dialog.append(form);
  document.body.append(dialog);
  lobby.picker = new RulesPicker({ ...rules, form, error }, "table-option");
  lobby.picker.wire();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    openTable(form, submit);
  });
  lobby.dialog = dialog;
  return dialog;
}

async function showOpenDialog() {
  const dialog = lobby.dialog || buildOpenDialog();
  dialog.querySelector(".form-error").hidden = true;
  openDialog(dialog);
  await lobby.picker.load();
}

async function openTable(form, submit) {
  submit.disabled = true;
  try {
    // The dialog opens before the presets arrive: a quick "Open the table" waits for them
    // instead of sending an empty preset (which the server refuses).  If they cannot be
    // loaded, the dialog already says so.
    await lobby.picker.load();
    if (!lobby.picker.info) return;
    const body = {
      level: form.elements.level.value || "normal",
      rules: lobby.picker.rules(),
      fill_bots: form.elements.fill_bots.checked,
      turn_timer: Number(form.elements.turn_timer.value),
      listing: form.elements.listing.value === "public" ? "public" : "private",
    };
    const opened = await api.post("/api/tables", body);
    closeDialog(lobby.dialog);
    goToTable(opened.id, opened.state);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    lobby.picker.showError(error.message);
  } finally {
    submit.disabled = false;
  }
}

// ---------------------------------------------------------------- the home page

/** After signing in (or on a page that opens signed in): a link's join, else the queue. */
async function signedInNow() {
  showJoinNote();
  if (lobby.pendingCode) {
    await joinByCode(lobby.pendingCode, { fromLink: true });
    return;
  }
  try {
    await askQuick(() => api.get("/api/quick"));
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    // The queue cannot be read now; Quick match still works and says why if it cannot.
  }
}

/**
 * Show the lobby for whoever is signed in (the home page was just shown). ``code``: the home
 * page came from a /join/{code} link, joined at once when signed in, else after signing in.
 */
export async function showLobby(code = null) {
  stopQuick();
  startLive();
  lobbyError("");
  lobby.pendingCode = code ? cleanCode(code) : null;
  showJoinNote();
  const doc = await loadAccount();
  if (!homeShown()) return; // the page went to a table meanwhile
  if (doc.signed_in) await signedInNow();
  else if (lobby.pendingCode || location.hash === "#account") focusSignIn();
}

/** Wire the lobby's controls; ``enterGame(id, state)`` is app.js's, to show a table. */
export function wireLobby({ enterGame }) {
  lobby.enterGame = enterGame;
  wireAccount({
    changed: (doc) => {
      if (doc) signedInNow();
      else {
        stopQuick();
        showJoinNote();
      }
    },
    leaving: leaveQuickQuietly,
  });
  restoreBotsChoice();
  $("#quick-join").addEventListener("click", joinQuick);
  $("#quick-leave").addEventListener("click", leaveQuick);
  $("#open-table").addEventListener("click", showOpenDialog);
  $("#join-form").addEventListener("submit", submitJoin);
}

