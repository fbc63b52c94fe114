// The rules page: the hand-written rules are in rules.html; this module adds what comes from
// the server — one table's rules (?spec=…), the worked examples computed by the engine, and
// the options with the ranges the server enforces — and draws the sample cards.

import { cardPicture } from "./cards.js";
import { badgeList, el, setUpPage } from "./pages.js";

const $ = (selector) => document.querySelector(selector);

async function getJson(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Error(data && data.error ? data.error : `HTTP ${response.status}`);
  }
  return data;
}

/** "This table's rules" on top, when the page was opened for one table. */
async function showTable() {
  const spec = new URLSearchParams(location.search).get("spec");
  if (!spec) return;
  const box = $("#this-table");
  box.hidden = false;
  const body = $("#this-table-body");
  try {
    const doc = await getJson(`/api/rules?spec=${encodeURIComponent(spec)}`);
    $("#this-table-label").textContent = doc.label;
    const list = el("dl", "table-rules");
    for (const section of doc.sections) {
      list.append(el("dt", "", section.heading), el("dd", "", section.text));
    }
    // The label is in the heading; the badges after it are where it differs from Varaq's.
    const changes = doc.badges.slice(1);
    body.replaceChildren(...(changes.length ? [badgeList(changes)] : []), list);
  } catch (error) {
    body.replaceChildren(el("p", "page-error", `These rules cannot be shown: ${error.message}`));
  }
}

const SEAT_ORDER = ["N", "E", "S", "W"];
const SIDE_WORDS = { NS: "North-South", EW: "East-West" };
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");

/** Bids and tricks of one hand as a small grid: a column per seat. */
function seatGrid(hand) {
  const table = el("table", "seat-grid");
  const head = el("tr");
  head.append(el("th", "", ""));
  for (const seat of SEAT_ORDER) head.append(el("th", `side-${seat === "N" || seat === "S" ? "ns" : "ew"}`, seat));
  const bids = el("tr");
  bids.append(el("th", "", "Bid"));
  const took = el("tr");
  took.append(el("th", "", "Took"));
  for (const seat of SEAT_ORDER) {
    bids.append(el("td", "", hand.bids[seat] ?? "—"));
    took.append(el("td", "", String(hand.tricks[seat])));
  }
  table.append(head, bids, took);
  return table;
}

/** One side's score for a hand: each part with its points, then the hand's score. */
function scoreBox(name, side) {
  const box = el("table", "score-lines");
  box.append(el("caption", "", SIDE_WORDS[name]));
  for (const line of side.lines) {
    const row = el("tr");
    const words = line.words[0].toUpperCase() + line.words.slice(1);
    row.append(el("td", "", words), el("td", "points", signed(line.points)));
    box.append(row);
  }
  const total = el("tr", "score-total");
  total.append(el("td", "", "This hand"), el("td", "points", signed(side.score)));
  const bags = el("tr", "score-bags");
  const cell = el("td", "", side.bags_words[0].toUpperCase() + side.bags_words.slice(1));
  cell.colSpan = 2;
  bags.append(cell);
  box.append(total, bags);
  return box;
}

function exampleCard(example, number) {
  const card = el("article", "example");
  card.id = `example-${example.key}`;
  const head = el("header", "example-head");
  head.append(el("span", "example-number", String(number)), el("h3", "", example.title));
  card.append(head, badgeList(example.badges), el("p", "example-note", example.note));
  if (example.before) card.append(el("p", "before", example.before));
  example.hands.forEach((hand, i) => {
    if (example.hands.length > 1) card.append(el("h4", "hand-title", `Hand ${i + 1}`));
    card.append(hand.tricks ? seatGrid(hand) : el("p", "deal-words", hand.deal_words));
    for (const name of example.sides) {
      const side = hand.sides[name];
      if (side && side.lines) card.append(scoreBox(name, side));
    }
    card.append(el("p", hand.refused ? "result refused" : "result", hand.result_words));
  });
  return card;
}

async function showExamples() {
  const list = $("#example-list");
  try {
    const doc = await getJson("/api/rules/examples");
    list.replaceChildren(...doc.examples.map((example, i) => exampleCard(example, i + 1)));
  } catch (error) {
    list.replaceChildren(el("p", "page-error", `The examples cannot be loaded: ${error.message}`));
  }
  list.removeAttribute("aria-busy");
}

function rangeWords(info) {
  if (info.low === null || info.high === null) return "on or off";
  const minus = (n) => (n < 0 ? `−${-n}` : String(n));
  if (info.words === "Mercy") return `${minus(info.low)} to one below the target, or none`;
  return `${minus(info.low)} to ${minus(info.high)}`;
}

function valueWords(value) {
  if (value === null || value === undefined) return "none";
  if (value === true) return "yes";
  if (value === false) return "no";
  return value < 0 ? `−${-value}` : String(value);
}

/** The options table and the presets table, from the ranges the server enforces. */
async function showOptions() {
  const optionsBox = $("#option-table");
  const presetsBox = $("#preset-table");
  try {
    const doc = await getJson("/api/presets");
    const options = el("table", "option-table");
    const head = el("tr");
    for (const title of ["Option", "Allowed", "What it changes"]) head.append(el("th", "", title));
    options.append(el("thead"), el("tbody"));
    options.tHead.append(head);
    for (const info of Object.values(doc.bounds)) {
      const row = el("tr");
      row.append(el("th", "", info.words), el("td", "nowrap", rangeWords(info)), el("td", "", info.help));
      options.tBodies[0].append(row);
    }
    optionsBox.replaceChildren(options);

    const names = Object.keys(doc.presets);
    const presets = el("table", "preset-table");
    const top = el("tr");
    top.append(el("th", "", ""));
    for (const name of names) top.append(el("th", "", doc.presets[name].label));
    presets.append(el("thead"), el("tbody"));
    presets.tHead.append(top);
    for (const [key, info] of Object.entries(doc.bounds)) {
      const row = el("tr");
      row.append(el("th", "", info.words));
      for (const name of names) row.append(el("td", "", valueWords(doc.presets[name][key])));
      presets.tBodies[0].append(row);
    }
    presetsBox.replaceChildren(presets);
  } catch (error) {
    optionsBox.replaceChildren(el("p", "page-error", `The options cannot be loaded: ${error.message}`));
  }
}

/** Sample cards written in the page as data-cards="KH 3H 2S AH". */
function drawSamples() {
  for (const box of document.querySelectorAll("[data-cards]")) {
    const seats = (box.dataset.seats || "").split(" ");
    box.replaceChildren(...box.dataset.cards.split(" ").map((code, i) => {
      const figure = el("figure", code === box.dataset.winner ? "won" : "");
      figure.append(cardPicture(code));
      if (seats[i]) figure.append(el("figcaption", "", seats[i]));
      return figure;
    }));
  }
}

setUpPage();
drawSamples();
showTable();
showExamples();
showOptions();
