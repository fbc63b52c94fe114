// The hand review page: open a game record (or arrive from a table with ?table=…&hand=…), ask
// the server for a review, and show it filling in trick by trick as the solver works.
//
// Every number and sentence comes from the server's review; this page only lays it out (and
// lists each hand's cards before a trick, which is the deal less the cards already played).

import { Refusal, request } from "./connection.js";
import { cardPicture } from "./cards.js";
import { el, setUpPage } from "./pages.js";
import { trickSeats } from "./seats.js";
import { plural, signed } from "./words.js";

const $ = (selector) => document.querySelector(selector);
const SEAT_NAMES = { N: "North", E: "East", S: "South", W: "West" };
const SIDE_NAMES = { NS: "North-South", EW: "East-West" };
const SUIT_ORDER = ["S", "H", "C", "D"];
const SUIT_SIGNS = { S: "♠", H: "♥", D: "♦", C: "♣" };
/** Milliseconds between two looks at a review that is still being made. */
const POLL_MS = 700;

const page = {
  /** What the review is of: ``{record}`` or ``{table}``. */
  source: null,
  job: null,
  timer: null,
  /** Bumped by each new review, so the answers to an older one are ignored. */
  generation: 0,
};

function showError(text) {
  const box = $("#review-error");
  box.textContent = text;
  box.hidden = !text;
}

// ---------------------------------------------------------------- asking for a review

async function start(hand) {
  clearTimeout(page.timer);
  page.generation += 1;
  const generation = page.generation;
  showError("");
  const body = { ...page.source };
  if (hand) body.hand = hand;
  $("#review-progress").hidden = false;
  $("#progress-words").textContent = "Starting the review…";
  try {
    const job = await request("POST", "/api/review", body);
    if (generation === page.generation) show(job);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    $("#review-progress").hidden = true;
    showError(error.message);
  }
}

async function poll(generation) {
  if (generation !== page.generation || !page.job) return;
  try {
    const job = await request("GET", `/api/review/${encodeURIComponent(page.job.id)}`);
    if (generation === page.generation) show(job);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    showError(error.message);
  }
}

function show(job) {
  page.job = job;
  drawHandChoice(job);
  drawProgress(job);
  drawReview(job.review);
  if (job.status === "running") {
    const generation = page.generation;
    page.timer = setTimeout(() => poll(generation), POLL_MS);
  } else if (job.status === "failed") {
    showError(job.error || "The review failed.");
  }
}

function drawHandChoice(job) {
  const select = $("#hand-select");
  const key = job.hands.join(",");
  if (select.dataset.hands !== key) {
    select.dataset.hands = key;
    select.replaceChildren(...job.hands.map((n) => {
      const option = el("option", "", `Hand ${n}`);
      option.value = String(n);
      return option;
    }));
  }
  select.value = String(job.hand);
  $("#hand-choice").hidden = job.hands.length < 2;
}

function drawProgress(job) {
  const { steps, done } = job.progress;
  const review = job.review;
  const bar = $("#progress-bar");
  bar.max = steps;
  bar.value = done;
  const count = review.tricks_priced;
  const priced = count ? `${count} of 13 tricks priced` : "no trick priced yet";
  let words;
  if (job.status === "running") {
    words = `Solving, trick by trick: ${priced}.`;
  } else if (count === 13) {
    words = "Every card is priced.";
  } else {
    words = `Done: ${priced}.`;
  }
  $("#progress-words").textContent = words;
  $("#review-progress").classList.toggle("running", job.status === "running");
}

// ---------------------------------------------------------------- the review

function resultWords(result) {
  const parts = [];
  for (const side of ["NS", "EW"]) {
    const seats = side === "NS" ? ["N", "S"] : ["E", "W"];
    const bits = [];
    if (result.contract[side]) {
      bits.push(`contract ${result.contract[side]} ${result.made[side] ? "made" : "set"}`);
    }
    for (const seat of seats) {
      if (seat in result.nil) {
        const blind = result.bids[seat] === "blind" ? "blind nil" : "nil";
        bits.push(`${SEAT_NAMES[seat]}'s ${blind} ${result.nil[seat] ? "made" : "broken"}`);
      }
    }
    parts.push(`${SIDE_NAMES[side]} ${signed(result.score[side])} (${bits.join(", ")})`);
  }
  return parts.join(" · ");
}

function sideTricks(result, side) {
  const seats = side === "NS" ? ["N", "S"] : ["E", "W"];
  return seats.reduce((sum, seat) => sum + result.tricks[seat], 0);
}

function drawReview(review) {
  $("#review").hidden = false;
  $("#review-title").textContent = `Hand ${review.hand}, dealt by ${SEAT_NAMES[review.dealer]}`;
  $("#review-result").textContent = resultWords(review.result);
  const played = `At the table: ${SIDE_NAMES.NS} took ${sideTricks(review.result, "NS")}, ${
    SIDE_NAMES.EW} ${sideTricks(review.result, "EW")}.`;
  $("#review-par").textContent = review.par
    ? `Par, all four playing perfectly from the first lead: ${SIDE_NAMES.NS} ${review.par.NS}, ${
      SIDE_NAMES.EW} ${review.par.EW}. ${played}`
    : `${played} Par: ${review.par_stopped ? "the whole deal is beyond this server's solver for now."
      : "being worked out…"}`;
  const one = review.flags["?"];
  const two = review.flags["??"];
  let flags = one || two
    ? `${plural(one, "play")} gave up a trick (?), ${plural(two, "play")} cost the contract or a nil (??).`
    : review.priced ? "No card priced so far cost a trick." : "";
  if (review.nil_cards) {
    // The count above is of the flags shown: a card played while a nil was alive is judged on
    // the nil, so its tricks are shown under it but never counted as a "?".
    flags += ` ${plural(review.nil_cards, "card")} played while a nil was alive ${
      review.nil_cards === 1 ? "is" : "are"} judged on the nil; their tricks are shown, not flagged.`;
  }
  $("#review-flags").textContent = flags.trim();
  drawBids(review);
  const stopped = $("#review-stopped");
  stopped.hidden = !review.stopped;
  stopped.textContent = review.stopped
    ? `The solver stopped: ${review.stopped}. Cards it did not reach are shown without prices.` : "";
  drawTricks(review);
}

function drawBids(review) {
  const table = $("#review-bids");
  const head = el("tr");
  head.append(el("th", "", "Seat"), el("th", "", "Bid"), el("th", "", "Took"),
    el("th", "", "Hard bids"), el("th", "", "Why"));
  const rows = (review.bids || []).map((judged) => {
    const tr = el("tr");
    const bid = judged.bid === "blind" ? "Blind nil" : judged.bid === "nil" ? "Nil" : String(judged.bid);
    const hard = judged.hard === null ? "—" : judged.hard === "nil" ? "Nil" : String(judged.hard);
    tr.append(el("td", "", SEAT_NAMES[judged.seat]), el("td", "", bid),
      el("td", "", String(review.result.tricks[judged.seat])), el("td", "", hard),
      el("td", "why", judged.reason));
    if (judged.hard !== null && String(judged.hard).toLowerCase() !== String(judged.bid)) {
      tr.className = "differs";
    }
    return tr;
  });
  if (!rows.length) {
    const tr = el("tr");
    const td = el("td", "muted", "The Hard player is judging the bids…");
    td.colSpan = 5;
    tr.append(td);
    rows.push(tr);
  }
  table.replaceChildren(head, ...rows);
}

function holdingsBefore(review, trickIndex) {
  // The hands at the first lead come from the server, which played the hand back through the
  // engine: the page never passes an exchange's cards itself (a card passed back would fool it).
  const hands = {};
  for (const seat of ["N", "E", "S", "W"]) hands[seat] = new Set(review.at_lead[seat]);
  review.tricks.slice(0, trickIndex).forEach((trick) => {
    for (const { seat, card } of trick.cards) hands[seat].delete(card);
  });
  return hands;
}

function holdingLine(seat, cards) {
  const line = el("p", "holding");
  line.append(el("strong", "", `${SEAT_NAMES[seat]} `));
  for (const suit of SUIT_ORDER) {
    const ranks = [...cards].filter((c) => c[1] === suit || (suit === "S" && c.endsWith("J")));
    if (!ranks.length) continue;
    line.append(el("span", `suit ${suit === "H" || suit === "D" ? "red" : ""}`,
      `${SUIT_SIGNS[suit]} ${ranks.map((c) => (c.endsWith("J") ? c : c[0] === "T" ? "10" : c[0])).join(" ")} `));
  }
  return line;
}

function priceWords(card) {
  // The server words it: for a live nil the verdict and the side's tricks, else the tricks.
  return card.caption || "";
}

function drawTricks(review) {
  const list = $("#review-tricks");
  const items = review.tricks.map((trick, t) => {
    const li = el("li", "review-trick");
    li.id = `trick-${t + 1}`;
    const seats = trickSeats(trick.leader, 4);
    const title = el("p", "trick-title", `Trick ${t + 1}: ${SEAT_NAMES[trick.leader]} leads, ${
      SEAT_NAMES[trick.winner]} wins`);
    const row = el("div", "trick-cards");
    const notes = el("div", "trick-notes");
    trick.cards.forEach((card, i) => {
      const figure = el("figure", `review-card${card.flag ? " flagged" : ""}${
        seats[i] === trick.winner ? " won" : ""}${card.kind ? "" : " unpriced"}`);
      figure.append(cardPicture(card.card));
      if (card.flag) figure.append(el("span", `flag${card.flag === "??" ? " double" : ""}`, card.flag));
      const caption = el("figcaption", "", SEAT_NAMES[card.seat]);
      const price = priceWords(card);
      if (price) caption.append(el("small", "", price));
      figure.append(caption);
      row.append(figure);
      if (card.text) notes.append(el("p", `note${card.flag === "??" ? " double" : ""}`, `${card.flag} ${card.text}`));
    });
    const hands = el("details", "trick-hands");
    hands.append(el("summary", "", "The four hands before this trick"));
    const held = holdingsBefore(review, t);
    for (const seat of trickSeats(trick.leader, 4)) hands.append(holdingLine(seat, held[seat]));
    li.append(title, row, notes, hands);
    return li;
  });
  // Keep open "four hands" panels open while the review fills in.
  const open = new Set([...list.querySelectorAll("details[open]")].map((d) => d.parentElement.id));
  list.replaceChildren(...items);
  for (const id of open) {
    const details = document.querySelector(`#${id} details`);
    if (details) details.open = true;
  }
}

// ---------------------------------------------------------------- wiring

async function openFile(file) {
  if (!file) return;
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch {
    showError(`${file.name} is not a game record: it is not JSON.`);
    return;
  }
  page.source = { record: doc };
  $("#hand-select").dataset.hands = "";
  start(null);
}

function wire() {
  setUpPage();
  $("#record-file").addEventListener("change", (event) => openFile(event.target.files[0]));
  $("#hand-select").addEventListener("change", (event) => {
    if (page.source) start(Number(event.target.value));
  });
  const params = new URLSearchParams(location.search);
  const table = params.get("table");
  if (table) {
    page.source = { table };
    const hand = Number(params.get("hand")) || null;
    start(hand);
  }
}

wire();
