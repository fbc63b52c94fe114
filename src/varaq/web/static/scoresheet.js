// The score sheet: a finished hand's summary and the match's history, as tables.
//
// Everything is read from the view (``history`` holds each hand's score as the engine computed
// it); nothing here adds points up by the rules.

import { signed } from "./words.js";

const SIDE_SEATS = { NS: ["N", "S"], EW: ["E", "W"] };

/** The totals after each hand. */
export function runningTotals(view) {
  // Totals after each hand, counted back from the current totals (a game may start from a
  // score other than 0 to 0).
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

function row(label, ns, ew, className) {
  const tr = document.createElement("tr");
  if (className) tr.className = className;
  tr.append(cell("th", label), cell("td", ns), cell("td", ew));
  return tr;
}

/** One hand: bids, tricks, contracts, nils, bags, penalties, points and totals. */
export function summaryTable(hand, totals, nameOf) {
  const table = document.createElement("table");
  table.className = "summary";
  const head = document.createElement("tr");
  head.append(cell("th", ""), cell("th", "Us (N·S)"), cell("th", "Them (E·W)"));
  table.append(head);
  const per = (side, fn) => SIDE_SEATS[side].map(fn).join(" · ");
  const seatBid = (s) => {
    const b = hand.bids[s];
    return `${s} ${b === "blind" ? "blind nil" : b}`;
  };
  table.append(row("Bids", per("NS", seatBid), per("EW", seatBid)));
  table.append(row("Tricks", per("NS", (s) => `${s} ${hand.tricks[s]}`),
    per("EW", (s) => `${s} ${hand.tricks[s]}`)));
  const contract = (side) => {
    const made = hand.made[side];
    if (made === null || made === undefined) return "no contract";
    return `${hand.contract[side]} ${made ? "made" : "set"}`;
  };
  table.append(row("Contract", contract("NS"), contract("EW"), "contract"));
  const nils = (side) => SIDE_SEATS[side]
    .filter((s) => s in hand.nil)
    .map((s) => `${nameOf(s)}: ${hand.bids[s] === "blind" ? "blind nil" : "nil"} ${
      hand.nil[s] ? "made" : "failed"}`)
    .join(", ") || "—";
  table.append(row("Nil", nils("NS"), nils("EW")));
  table.append(row("Bags", `+${hand.new_bags.NS} (now ${hand.bags.NS})`,
    `+${hand.new_bags.EW} (now ${hand.bags.EW})`));
  const penalty = (side) => (hand.penalties[side] ? `${hand.penalties[side]} × bag penalty` : "—");
  table.append(row("Penalties", penalty("NS"), penalty("EW")));
  table.append(row("Points", signed(hand.score.NS), signed(hand.score.EW), "points"));
  table.append(row("Total", String(totals.NS), String(totals.EW), "total"));
  return table;
}

/** Fill ``node`` (a table) with every hand's points and running totals. */
export function historyTable(view, node) {
  const totals = runningTotals(view);
  const head = document.createElement("tr");
  head.append(cell("th", "Hand"), cell("th", "Us"), cell("th", "Them"));
  const rows = view.history.map((h, i) => {
    const tr = document.createElement("tr");
    tr.append(cell("td", String(i + 1)));
    for (const side of ["NS", "EW"]) {
      const td = cell("td", String(totals[i][side]));
      td.append(cell("small", ` (${signed(h.score[side])})`));
      tr.append(td);
    }
    return tr;
  });
  node.replaceChildren(head, ...rows);
}

/** "contract made, +71": the summary's title. */
export function handHeadline(hand) {
  const us = hand.made.NS;
  if (us === true) return `contract made, ${signed(hand.score.NS)}`;
  if (us === false) return `set, ${signed(hand.score.NS)}`;
  return `${signed(hand.score.NS)} to us`;
}
