// The daily page: the day's promise, your try (play, continue or review it), your result
// against the field with a line to share, the day's leaderboard, and a calendar of past days.
//
// The game itself is played on the table page (/play/{id}), like any table. A guest's try is
// South's to whoever holds its id, so the page keeps a guest's table of each day in
// localStorage; a signed-in person's try is found by their account. Every number here comes
// from the server: the page only arranges it.

import { Refusal, request } from "./connection.js";
import { el, setUpPage } from "./pages.js";

const $ = (selector) => document.querySelector(selector);
const MINUS = "\u2212";

const page = {
  /** The day's document from ``GET /api/daily/{date}``. */
  doc: null,
  /** The month the calendar shows: [year, month 1-12]. */
  month: null,
};

// ---------------------------------------------------------------- words

const LONG_DATE = new Intl.DateTimeFormat("en-GB", {
  weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC",
});
const MONTH = new Intl.DateTimeFormat("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });

function utc(iso) {
  return new Date(`${iso}T00:00:00Z`);
}

/** A score with a true minus sign: ``−40``. */
function points(n) {
  return n < 0 ? `${MINUS}${-n}` : String(n);
}

/** A comparison with the field, whole points, halves away from zero: ``+38``, ``−12``, ``±0``. */
function signed(value) {
  const whole = Math.sign(value) * Math.round(Math.abs(value));
  if (whole === 0) return "±0";
  return whole > 0 ? `+${whole}` : `${MINUS}${-whole}`;
}

/** ``263–190``; ``104 to −119`` when the dash would run into a minus sign. */
function score(ours, theirs) {
  return `${points(ours)}${theirs < 0 ? " to " : "–"}${points(theirs)}`;
}

function handsWord(n) {
  return n === 1 ? "1 hand" : `${n} hands`;
}

// ---------------------------------------------------------------- a guest's tries

function guestKey(date) {
  return `varaq-daily:${date}`;
}

function guestTable(date) {
  try {
    return localStorage.getItem(guestKey(date));
  } catch {
    return null;
  }
}

function keepGuestTable(date, id) {
  try {
    localStorage.setItem(guestKey(date), id);
  } catch {
    // No storage: the try can still be played now, only not found again from this page.
  }
}

// ---------------------------------------------------------------- loading

function dateInPath() {
  const match = location.pathname.match(/^\/daily\/(\d{4}-\d{2}-\d{2})\/?$/);
  return match ? match[1] : null;
}

async function loadDay() {
  const asked = dateInPath();
  let doc = await request("GET", asked ? `/api/daily/${asked}` : "/api/daily");
  const guest = !doc.signed_in && !doc.you ? guestTable(doc.date) : null;
  if (guest) {
    doc = await request("GET", `/api/daily/${doc.date}?table=${encodeURIComponent(guest)}`);
  }
  return doc;
}

function showError(text) {
  const box = $("#daily-error");
  box.textContent = text;
  box.hidden = !text;
}

// ---------------------------------------------------------------- your try

function drawHeading(doc) {
  const today = doc.date === doc.today;
  $("#daily-kicker").textContent = today ? "Today's daily" : "A past daily · played late, never ranked";
  $("#daily-title").textContent = `Daily · ${LONG_DATE.format(utc(doc.date))}`;
  document.title = `Daily ${doc.date} · Varaq`;
}

/** The guide's rules, in the rules page's words for the daily preset (sent with the day). */
function drawGuide(doc) {
  const rules = doc.rules;
  for (const span of document.querySelectorAll(".rule-target")) span.textContent = String(rules.target);
  for (const span of document.querySelectorAll(".rule-label")) span.textContent = rules.label;
  for (const p of document.querySelectorAll(".rule-text")) {
    const text = rules.sections[p.dataset.rule] || "";
    p.textContent = text;
    p.hidden = !text;
  }
}

function drawWho(doc) {
  const who = $("#daily-who");
  who.replaceChildren();
  if (doc.signed_in) {
    who.textContent = doc.late
      ? "You are signed in. A past day's try is compared with the field but never ranked."
      : "You are signed in: this try counts, and there is one a day.";
    return;
  }
  const link = el("a", "", "Sign in");
  link.href = "/#account";
  who.append("You are not signed in: you can play, but the try is not counted. ", link,
    " on the home page to have it counted.");
}

function drawPlay(doc) {
  const play = $("#daily-play");
  const you = doc.you;
  if (you) {
    play.textContent = you.status === "over" ? "Review your game" : "Continue your try";
    play.href = `/play/${encodeURIComponent(you.id)}`;
  } else {
    play.textContent = doc.date === doc.today ? "Play today's daily" : "Play this daily";
    play.href = `/daily/${doc.date}`;
  }
}

function headline(you) {
  const scored = score(you.totals[0], you.totals[1]);
  const field = you.against_field === null ? "nobody else has played these hands yet"
    : `${signed(you.against_field)} against the field`;
  if (you.status !== "over") {
    return you.hands.length
      ? `In play: ${scored} after ${handsWord(you.hands.length)}, ${field} so far.`
      : "In play: no hand finished yet.";
  }
  const verb = you.won ? "Won" : "Lost";
  const conceded = you.conceded ? " (conceded)" : "";
  return `${verb} ${scored} in ${handsWord(you.hands.length)}${conceded} · ${field}.`;
}

function beatLine(doc) {
  const you = doc.you;
  if (you.status !== "over") return "";
  if (you.beat === null) {
    return you.guest ? "Nobody is ranked yet to compare with." : "You are the first to finish.";
  }
  const rank = you.rank ? `Rank ${you.rank} of ${doc.board.players}: you` : "You";
  return `${rank} beat ${you.beat}% of ${you.rank ? "the other players" : "the ranked players"}.`;
}

/** The ranked totals as bars, the range holding your total marked. */
function drawField(doc) {
  const box = $("#daily-field");
  const bins = doc.board.distribution;
  const you = doc.you;
  box.replaceChildren();
  box.hidden = bins.length < 2 || you.against_field === null;
  $("#field-caption").hidden = box.hidden;
  if (box.hidden) return;
  const most = Math.max(...bins.map((b) => b.count));
  bins.forEach((bin, i) => {
    const last = i === bins.length - 1;
    const mine = you.against_field >= bin.low
      && (you.against_field < bin.high || (last && you.against_field <= bin.high));
    const bar = el("span", mine ? "bar mine" : "bar");
    bar.style.setProperty("--share", String(bin.count / most));
    bar.title = `${bin.count} between ${signed(bin.low)} and ${signed(bin.high)}`;
    box.append(bar);
  });
  box.setAttribute("aria-label",
    `How the ranked players did against the field, from ${signed(bins[0].low)} to ${
      signed(bins[bins.length - 1].high)}; your bar is highlighted.`);
}

function drawResult(doc) {
  const you = doc.you;
  $("#daily-result").hidden = !you;
  if (!you) return;
  $("#daily-headline").textContent = headline(you);
  $("#daily-beat").textContent = beatLine(doc);
  drawField(doc);
  $("#share-row").hidden = !you.share;
  $("#share-line").value = you.share || "";
  $("#share-note").textContent = "";
}

async function copyShare() {
  const line = $("#share-line");
  try {
    await navigator.clipboard.writeText(line.value);
    $("#share-note").textContent = "Copied: paste it anywhere. It names no card.";
  } catch {
    line.select();
    $("#share-note").textContent = "Selected: copy it with your keyboard (Ctrl+C or ⌘C).";
  }
}

async function startTry(event) {
  const doc = page.doc;
  if (!doc || doc.you) return; // a link to the try itself
  event.preventDefault();
  const play = $("#daily-play");
  play.setAttribute("aria-disabled", "true");
  try {
    const started = await request("POST", `/api/daily/${doc.date}/start`, {});
    if (!doc.signed_in) keepGuestTable(doc.date, started.id);
    location.assign(`/play/${encodeURIComponent(started.id)}`);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    showError(error.message);
  } finally {
    play.removeAttribute("aria-disabled");
  }
}

// ---------------------------------------------------------------- the leaderboard

function boardRow(row, position) {
  const tr = el("tr", row.you ? "you" : "");
  const rank = row.rank !== null ? String(row.rank) : "–";
  const result = row.status !== "over" ? "in play"
    : `${row.won ? "won" : "lost"}${row.conceded ? " (conceded)" : ""}${row.late ? ", late" : ""}`;
  const name = el("td", "name", row.name);
  if (row.you) name.append(el("span", "you-tag", " (you)"));
  tr.append(
    el("td", "rank", position === "ranked" ? rank : "–"),
    name,
    el("td", "num vs-field", row.against_field === null ? "–" : signed(row.against_field)),
    el("td", "", result),
    el("td", "num", score(row.totals[0], row.totals[1])),
    el("td", "num margin", signed(row.margin)),
  );
  const perHand = row.per_hand.map((p, i) => `hand ${i + 1}: ${signed(p)}`).join(", ");
  if (perHand) tr.title = perHand;
  return tr;
}

function drawBoard(doc) {
  const board = doc.board;
  const body = $("#board-body");
  body.replaceChildren(
    ...board.ranked.map((row) => boardRow(row, "ranked")),
    ...board.others.map((row) => boardRow(row, "other")),
  );
  $("#board-table").hidden = !body.childElementCount;
  const parts = [];
  if (board.players) parts.push(board.players === 1 ? "1 player ranked" : `${board.players} players ranked`);
  if (board.playing) parts.push(`${board.playing} still playing`);
  $("#board-counts").textContent = parts.length ? `${parts.join(" · ")}.`
    : "Nobody has finished this daily yet.";
}

// ---------------------------------------------------------------- the calendar

function monthKey([year, month]) {
  return `${year}-${String(month).padStart(2, "0")}`;
}

function shiftMonth([year, month], by) {
  const index = year * 12 + (month - 1) + by;
  return [Math.floor(index / 12), (index % 12) + 1];
}

function dayCell(day, doc) {
  const item = el("li", "day");
  const link = el("a", "");
  link.href = `/daily/${day.date}`;
  const number = Number(day.date.slice(8));
  link.append(el("span", "day-number", String(number)));
  let mark = "";
  let words = "";
  if (day.you) {
    if (day.you.status !== "over") [mark, words] = ["…", "in play"];
    else if (day.you.won) [mark, words] = ["✓", "you won"];
    else [mark, words] = ["✗", "you lost"];
    if (day.you.late) words += ", late";
    item.classList.add(day.you.status !== "over" ? "playing" : day.you.won ? "won" : "lost");
  } else if (!doc.signed_in && guestTable(day.date)) {
    [mark, words] = ["•", "started as a guest"];
    item.classList.add("guest");
  }
  if (mark) link.append(el("span", "mark", mark));
  if (day.players) link.append(el("span", "players", String(day.players)));
  if (day.date === doc.date) link.setAttribute("aria-current", "date");
  if (day.date === doc.today) item.classList.add("today");
  const players = day.players === 1 ? "1 player ranked" : `${day.players} players ranked`;
  link.setAttribute("aria-label",
    `${LONG_DATE.format(utc(day.date))}${words ? `: ${words}` : ""}; ${players}`);
  item.append(link);
  return item;
}

async function drawMonth() {
  const doc = page.doc;
  const key = monthKey(page.month);
  const first = utc(`${key}-01`);
  $("#month-title").textContent = MONTH.format(first);
  const firstMonth = doc.first.slice(0, 7);
  const lastMonth = doc.today.slice(0, 7);
  $("#month-prev").disabled = key <= firstMonth;
  $("#month-next").disabled = key >= lastMonth;
  let days = [];
  try {
    days = (await request("GET", `/api/daily/month/${key}`)).days;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    showError(error.message);
  }
  if (key !== monthKey(page.month)) return; // another month was asked for meanwhile
  // Monday first: the blanks before the first day.
  const blanks = (first.getUTCDay() + 6) % 7;
  const cells = [];
  for (let i = 0; i < blanks; i += 1) {
    const blank = el("li", "blank");
    blank.setAttribute("aria-hidden", "true");
    cells.push(blank);
  }
  for (const day of days) cells.push(dayCell(day, doc));
  $("#calendar").replaceChildren(...cells);
}

function moveMonth(by) {
  page.month = shiftMonth(page.month, by);
  drawMonth();
}

// ---------------------------------------------------------------- the page

async function main() {
  setUpPage();
  $("#daily-play").addEventListener("click", startTry);
  $("#share-copy").addEventListener("click", copyShare);
  $("#month-prev").addEventListener("click", () => moveMonth(-1));
  $("#month-next").addEventListener("click", () => moveMonth(1));
  let doc;
  try {
    doc = await loadDay();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    showError(error.message);
    return;
  }
  page.doc = doc;
  page.month = [Number(doc.date.slice(0, 4)), Number(doc.date.slice(5, 7))];
  drawHeading(doc);
  drawGuide(doc);
  drawWho(doc);
  drawPlay(doc);
  drawResult(doc);
  $("#daily-card").hidden = false;
  drawBoard(doc);
  await drawMonth();
  document.body.dataset.ready = "1";
}

main();
