// The score sheet: a finished hand's summary and the match's history.
//
// Everything is read from the view: each hand's points come from the server line by line
// (``parts``, which add up to ``score``) with the line that decided the hand (``headline``);
// nothing here adds points up by the rules.

import { headlineWords, number, partWords, plural, signed } from "./words.js";

/** The totals after each hand, counted back from the current totals (a game may start from a
 * score other than 0 to 0). */
export function runningTotals(view) {
  const out = [];
  let ns = view.totals.NS;
  let ew = view.totals.EW;
  for (let i = view.history.length - 1; i >= 0; i--) {
    out[i] = { NS: ns, EW: ew };
    ns -= view.history[i].score.NS;
    ew -= view.history[i].score.EW;
  }
  return out;
}

export function cell(tag, text, className) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

function line(label, points, className) {
  const tr = document.createElement("tr");
  if (className) tr.className = className;
  tr.append(cell("th", label), cell("td", points));
  return tr;
}

function bidText(bid) {
  if (bid === "blind") return "blind nil";
  if (bid === "nil" || bid === 0) return "nil";
  return `bid ${bid}`;
}

/** One side's part of a hand: its players, its points line by line, its total and bags. */
function sideSummary(hand, total, seating, side) {
  const box = document.createElement("section");
  box.className = `side-sum ${side === seating.mySide ? "ours" : "theirs"}`;
  const title = cell("h3", seating.sideName(side));
  title.append(cell("span", signed(hand.score[side]), "side-points"));
  const players = document.createElement("ul");
  players.className = "players";
  players.append(...seating.sideSeats(side).map((seat) => cell("li",
    `${seating.name(seat)}: ${bidText(hand.bids[seat])}, took ${hand.tricks[seat]}`)));
  const lines = document.createElement("table");
  lines.className = "lines";
  for (const part of (hand.parts && hand.parts[side]) || []) {
    lines.append(line(partWords(part, seating), signed(part.points),
      part.points < 0 ? "minus" : ""));
  }
  lines.append(line("Points", signed(hand.score[side]), "points"));
  lines.append(line("Total", number(total[side]), "total"));
  const bags = cell("p", `Bags: ${signed(hand.new_bags[side])} this hand, ${
    hand.bags[side]} carried`, "bags-line");
  if (hand.penalties[side]) bags.append(` (${plural(hand.penalties[side], "penalty")} paid)`);
  box.append(title, players, lines, bags);
  return box;
}

/** A finished hand: each side's players, points line by line, total and bags. */
export function summaryOf(hand, total, seating) {
  const box = document.createElement("div");
  box.className = "summary";
  box.append(sideSummary(hand, total, seating, seating.mySide),
    sideSummary(hand, total, seating, seating.theirSide));
  return box;
}

/** What decided the hand, in the table's names ("Partner's nil failed: −100"). */
export function headlineOf(hand, seating) {
  if (hand.headline) return headlineWords(hand.headline, seating);
  return `${seating.sideName(seating.mySide)} ${signed(hand.score[seating.mySide])}`;
}

/** Fill ``node`` (a table) with every hand's running totals and points, or "No hands yet". */
export function historyTable(view, node, seating) {
  const totals = runningTotals(view);
  const sides = [seating.mySide, seating.theirSide];
  const head = document.createElement("tr");
  head.append(cell("th", "Hand"), ...sides.map((side) => cell("th", seating.sideName(side))));
  if (!view.history.length) {
    const empty = document.createElement("tr");
    const td = cell("td", "No hands yet", "empty");
    td.colSpan = 3;
    empty.append(td);
    node.replaceChildren(head, empty);
    return;
  }
  const rows = view.history.map((h, i) => {
    const tr = document.createElement("tr");
    tr.append(cell("td", String(i + 1)));
    for (const side of sides) {
      const td = cell("td", number(totals[i][side]));
      td.append(cell("small", ` (${signed(h.score[side])})`));
      tr.append(td);
    }
    return tr;
  });
  node.replaceChildren(head, ...rows);
}
