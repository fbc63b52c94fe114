// The lessons page: the list of lessons with the learner's progress, and each lesson played on
// the real table (the same drawing, hand, panel and input modules as the game).
//
// The server judges every try (POST /api/lessons/{id}/try): a refused card comes back with
// the lesson's sentence and nothing changes; a legal one comes back with the table after it,
// right or wrong. This page decides no rule; it shows what the answer says.

import { Refusal, request } from "./connection.js";
import { drawHand } from "./hand.js";
import { attachInput } from "./input.js";
import { announce, cardNote, toast } from "./notices.js";
import { el, setUpPage } from "./pages.js";
import { buildBidGrid, drawPanel } from "./panel.js";
import { headlineOf } from "./scoresheet.js";
import { seating as seatingOf } from "./seats.js";
import { buildFelt, drawBadges, drawScorebar, drawSeats, drawTrick, trickCards } from "./table.js";

const $ = (selector) => document.querySelector(selector);
const PROGRESS = "varaq-lessons";

const lesson = {
  doc: null,
  /** The view on the table now (the lesson's position, or the table after a try). */
  view: null,
  seating: seatingOf("S", {}),
  /** The trick the last try finished, drawn in the middle with its winner. */
  trick: null,
  /** Right moves made so far (an exchange takes two). */
  done: [],
  /** After a wrong move or the lesson's end the table waits for "Try again" or "Next". */
  locked: false,
  busy: false,
  lifted: null,
};

// ---------------------------------------------------------------- progress
//
// Kept in this browser (localStorage); for a signed-in person also on the account (the
// server records a lesson finished there, and the list page shares the two).

/** The ids of the lessons this browser has finished. */
function finishedLessons() {
  try {
    const ids = JSON.parse(localStorage.getItem(PROGRESS) || "[]");
    return new Set(Array.isArray(ids) ? ids.filter((id) => typeof id === "string") : []);
  } catch {
    return new Set();
  }
}

function markFinished(id) {
  const ids = finishedLessons();
  ids.add(id);
  try {
    localStorage.setItem(PROGRESS, JSON.stringify([...ids]));
  } catch {
    // Private windows may refuse storage: the lesson still counts for this visit.
  }
}

// ---------------------------------------------------------------- the list

async function showList() {
  $("#table").hidden = true;
  $("#lessons").hidden = false;
  document.body.dataset.page = "learn";
  document.body.classList.add("doc-page");
  document.title = "Learn · Varaq";
  const { lessons, done: onAccount, signed_in: signedIn } = await request("GET", "/api/lessons");
  const done = finishedLessons();
  if (signedIn) {
    // The account and this browser share their progress: each learns what the other knows.
    const missing = [...done].filter((id) => !onAccount.includes(id));
    for (const id of onAccount) markFinished(id);
    onAccount.forEach((id) => done.add(id));
    if (missing.length) {
      request("POST", "/api/lessons/progress", { done: missing }).catch(() => null);
    }
  }
  $("#lesson-list").replaceChildren(...lessons.map((item, i) => {
    const li = el("li", done.has(item.id) ? "done" : "");
    const link = el("a", "", item.title);
    link.href = `/learn/${item.id}`;
    li.append(el("span", "lesson-no", String(i + 1)), link);
    if (done.has(item.id)) li.append(el("span", "tick", "✓ done"));
    return li;
  }));
  const count = lessons.filter((item) => done.has(item.id)).length;
  $("#lesson-progress").textContent = count
    ? `${count} of ${lessons.length} lessons done.` : `${lessons.length} lessons, about a minute each.`;
  const next = lessons.find((item) => !done.has(item.id));
  const start = $("#lesson-start");
  start.hidden = !next;
  if (next) {
    start.href = `/learn/${next.id}`;
    start.textContent = count ? `Continue: ${next.title}` : "Start with the first lesson";
  }
}

// ---------------------------------------------------------------- one lesson

async function showLesson(id) {
  $("#lessons").hidden = true;
  $("#table").hidden = false;
  document.body.dataset.page = "table";
  document.body.classList.remove("doc-page");
  let doc;
  try {
    doc = await request("GET", `/api/lessons/${encodeURIComponent(id)}`);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    history.replaceState({}, "", "/learn");
    toast(error.message);
    showList();
    return;
  }
  lesson.doc = doc;
  document.title = `${doc.title} · Learn · Varaq`;
  $("#lesson-number").textContent = `Lesson ${doc.number} of ${doc.of}`;
  $("#lesson-title").textContent = doc.title;
  $("#lesson-words").replaceChildren(...doc.text.map((text) => el("p", "", text)));
  $("#lesson-task").textContent = doc.task;
  const next = $("#next-lesson");
  next.href = doc.next ? `/learn/${doc.next}` : "/learn";
  next.textContent = doc.next ? "Next lesson" : "All lessons done";
  $("#table").classList.add("intro");
  reset();
}

/** Back to the lesson's position. */
function reset() {
  Object.assign(lesson, {
    view: lesson.doc.view, trick: null, done: [], locked: false, busy: false, lifted: null,
  });
  lesson.seating = seatingOf(lesson.view.seat, lesson.doc.names);
  $("#feedback").hidden = true;
  $("#count-panel").hidden = true;
  $("#try-again").hidden = true;
  $("#next-lesson").hidden = true;
  render();
}

function legalNow() {
  const view = lesson.view;
  if (lesson.locked || lesson.busy || view.turn !== lesson.seating.me) return new Set();
  return new Set(view.legal);
}

function render() {
  const view = lesson.view;
  const seating = lesson.seating;
  const felt = $("#felt");
  const legal = legalNow();
  drawScorebar($("#scorebar"), view, seating);
  drawBadges($("#badges"), view.badges);
  // A lesson at a plain Classic table needs no badge; the joker lesson shows its rules.
  $("#badges").hidden = (view.badges || []).length < 2;
  drawSeats(felt, view, seating);
  if (lesson.trick) drawTrick(felt, trickCards(lesson.trick), seating, lesson.trick);
  else drawTrick(felt, view.trick, seating, { leader: view.leader });
  drawPanel(view, seating, {
    legal, hint: null, picks: new Set(), busy: lesson.busy, nextButton: false,
    newGameButton: false,
  });
  drawHand($("#hand"), view, { legal, lifted: lesson.lifted, deal: false });
  $("#table").dataset.phase = view.phase;
}

/** "A♠", "10♥": a card inside a line of text, red or black like its suit. */
function cardGlyph(code) {
  if (code === "BJ" || code === "LJ") return el("span", "glyph", code === "BJ" ? "Big joker" : "Little joker");
  const suit = { S: "♠", H: "♥", D: "♦", C: "♣" }[code[1]];
  const red = code[1] === "H" || code[1] === "D";
  return el("span", `glyph${red ? " red" : ""}`, `${code[0] === "T" ? "10" : code[0]}${suit}`);
}

/** The hand's tricks card by card, shown on the felt once the learner has bid. */
function showCount(answer) {
  const panel = $("#count-panel");
  panel.hidden = !answer.count;
  if (!answer.count) return;
  const list = el("ul", "count");
  for (const item of answer.count) {
    const li = el("li");
    li.append(cardGlyph(item.card), el("span", "count-tricks", String(item.tricks)),
      el("span", "", item.words));
    list.append(li);
  }
  panel.replaceChildren(el("p", "estimate", answer.estimate), list);
}

function feedback({ right, legal, text, hand }) {
  const box = $("#feedback");
  box.className = `feedback ${right ? "right" : "wrong"}`;
  const parts = [el("p", "", text)];
  // The lesson's sentence for a right answer says so itself; a wrong one gets a word in front.
  if (!right) parts.unshift(el("strong", "verdict", legal ? "Not this time" : "Not allowed"));
  if (hand) parts.push(el("p", "headline", hand));
  box.replaceChildren(...parts);
  box.hidden = false;
}

async function attempt(action) {
  if (lesson.busy || lesson.locked) return;
  lesson.busy = true;
  lesson.lifted = null;
  render();
  let answer;
  try {
    answer = await request("POST", `/api/lessons/${encodeURIComponent(lesson.doc.id)}/try`,
      { action, done: lesson.done });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    toast(error.message);
    lesson.busy = false;
    render();
    return;
  }
  lesson.busy = false;
  if (!answer.legal) {
    // A dimmed card, or a move the rules refuse here: the lesson says why; nothing changes.
    cardNote(answer.text);
    feedback(answer);
    announce(answer.text);
    render();
    return;
  }
  lesson.view = answer.view;
  lesson.trick = answer.trick || null;
  if (answer.right && !answer.finished) lesson.done.push(answer.action);
  lesson.locked = !answer.right || answer.finished;
  const over = answer.view.phase === "deal" || answer.view.phase === "over";
  const last = answer.view.history[answer.view.history.length - 1];
  feedback({ ...answer, hand: over && last ? headlineOf(last, lesson.seating) : "" });
  showCount(answer);
  announce(answer.text);
  $("#try-again").hidden = answer.right;
  $("#next-lesson").hidden = !answer.finished;
  if (answer.finished) {
    markFinished(lesson.doc.id);
    $("#next-lesson").focus();
  } else if (!answer.right) {
    $("#try-again").focus();
  }
  render();
}

/** What the shared input module may ask of this page. */
const inputPage = {
  view: () => (lesson.view && !$("#table").hidden ? lesson.view : null),
  lifted: () => lesson.lifted,
  lift(code) {
    lesson.lifted = code;
    render();
  },
  play: (code) => attempt(code),
  // Each card of an exchange is judged as it is picked.
  pick: (code) => attempt(code),
  // A tap on a dimmed card is a try too: the server answers with the lesson's reason.
  explain: (code) => attempt(code),
  bid: (action) => attempt(action),
  canBid: () => Boolean(lesson.view) && !$("#bid-panel").hidden,
  say: toast,
};

function route() {
  const match = location.pathname.match(/^\/learn\/([a-z0-9-]+)\/?$/);
  if (match) showLesson(match[1]);
  else showList();
}

function wire() {
  setUpPage();
  buildFelt($("#felt"));
  buildBidGrid($("#bid-grid"), (action) => attempt(action));
  for (const button of document.querySelectorAll("#blind-panel [data-action]")) {
    button.addEventListener("click", () => attempt(button.dataset.action));
  }
  $("#try-again").addEventListener("click", reset);
  $("#to-table").addEventListener("click", () => $("#table").classList.remove("intro"));
  $("#read-again").addEventListener("click", () => $("#table").classList.add("intro"));
  attachInput({ hand: $("#hand"), trick: $("#trick"), page: inputPage });
}

wire();
route();
