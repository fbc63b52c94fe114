// The table's dialogs: the hand summary, the scores, the end of the match, the last trick,
// conceding, and this table's rules in words.

import { api } from "./connection.js";
import { cardPicture } from "./cards.js";
import { trickSeats } from "./seats.js";
import { cell, headlineOf, historyTable, runningTotals, summaryOf } from "./scoresheet.js";
import { drawBadges } from "./table.js";
import { number } from "./words.js";

const $ = (selector) => document.querySelector(selector);

export function openDialog(dialog) {
  if (!dialog.open) dialog.showModal();
}

export function closeDialog(dialog) {
  if (dialog.open) dialog.close();
}

export function anyDialogOpen() {
  return [...document.querySelectorAll("dialog")].some((d) => d.open);
}

/** Point a "Review" link at hand ``n`` of its table (the page opens the review). */
function reviewHand(link, n) {
  link.href = `/review?table=${encodeURIComponent(link.dataset.table || "")}&hand=${n}`;
}

/** The summary of the hand just finished, with the "Next hand" button. */
export function showSummary(view, seating) {
  const dialog = $("#summary-dialog");
  const n = view.history.length;
  reviewHand($("#review-link"), n);
  $("#review-link").hidden = false;
  const hand = view.history[n - 1];
  $("#summary-title").textContent = `Hand ${n}`;
  $("#summary-headline").textContent = headlineOf(hand, seating);
  $("#summary-headline").hidden = false;
  $("#summary-body").replaceChildren(summaryOf(hand, runningTotals(view)[n - 1], seating));
  $("#history-title").hidden = false;
  historyTable(view, $("#history-table"), seating);
  $("#next-hand").hidden = false;
  if (!dialog.open) {
    openDialog(dialog);
    $("#next-hand").focus();
  }
}

/** The scores so far (the same dialog, without a hand and without "Next hand"). */
export function showScores(view, seating) {
  $("#summary-title").textContent = "Scores";
  $("#summary-headline").hidden = true;
  $("#summary-body").replaceChildren();
  $("#history-title").hidden = true;
  historyTable(view, $("#history-table"), seating);
  $("#next-hand").hidden = true;
  $("#review-link").hidden = true;
  openDialog($("#summary-dialog"));
}

/** Who won, the final score, and why the match ended where both sides passed the target. */
export function showOver(view, seating, recordUrl) {
  const dialog = $("#over-dialog");
  const weWon = view.winner === seating.mySide;
  const banner = $("#over-banner");
  banner.textContent = weWon ? "♠ ♥ ♣ ♦" : "♦ ♣ ♥ ♠";
  banner.className = `over-banner ${weWon ? "won" : "lost"}`;
  const winners = seating.sideName(view.winner);
  $("#over-title").textContent = view.conceded === seating.mySide
    ? `You conceded: ${winners} win`
    : view.conceded ? `${seating.sideName(view.conceded)} conceded: you win`
      : weWon ? `${winners} win!` : `${winners} win the match`;
  const mine = view.totals[seating.mySide];
  const theirs = view.totals[seating.theirSide];
  $("#over-score").textContent = `${seating.sideName(seating.mySide)} ${number(mine)} · ${
    seating.sideName(seating.theirSide)} ${number(theirs)}`;
  const both = !view.conceded && mine >= view.target && theirs >= view.target;
  $("#over-note").hidden = !both;
  $("#over-note").textContent = both
    ? `Both sides passed the target of ${view.target}: the higher score wins.` : "";
  const n = view.history.length;
  const body = $("#over-body");
  if (n && !view.conceded) {
    const headline = cell("p", headlineOf(view.history[n - 1], seating), "summary-headline");
    body.replaceChildren(headline, summaryOf(view.history[n - 1], runningTotals(view)[n - 1],
      seating));
  } else {
    body.replaceChildren();
  }
  historyTable(view, $("#over-history"), seating);
  $("#over-history").hidden = !n;
  $("#over-record").href = recordUrl;
  reviewHand($("#over-review"), n);
  $("#over-review").hidden = !n || Boolean(view.conceded);
  if (!dialog.open) {
    openDialog(dialog);
    $("#over-new-game").focus();
  }
}

/** The previous trick's four cards, who led it and who won it. */
export function showLastTrick(view, seating) {
  const trick = view.tricks[view.tricks.length - 1];
  if (!trick) return;
  const seats = trickSeats(trick.leader, trick.cards.length);
  $("#last-trick-body").replaceChildren(...trick.cards.map((card, i) => {
    const seat = seats[i];
    const figure = document.createElement("figure");
    figure.className = seat === trick.winner ? "won" : "";
    figure.append(cardPicture(card));
    const caption = cell("figcaption", `${seating.name(seat)}${i === 0 ? " (led)" : ""}`);
    if (seat === trick.winner) caption.append(cell("strong", " — won"));
    figure.append(caption);
    return figure;
  }));
  openDialog($("#last-trick-dialog"));
}

export function askConcede(seating) {
  $("#concede-text").textContent =
    `${seating.sideName(seating.theirSide)} win at once. This cannot be undone.`;
  openDialog($("#concede-dialog"));
}

/** This table's rules in words from the server; without them, the table's badges. */
export async function showRules(view) {
  const dialog = $("#rules-dialog");
  $("#rules-title").textContent = "Rules at this table";
  drawBadges($("#rules-badges"), view.badges);
  $("#rules-body").replaceChildren(cell("p", "Loading the rules…", "muted"));
  openDialog(dialog);
  let doc = null;
  try {
    doc = await api.rules(view.rules);
  } catch {
    doc = null;
  }
  if (!doc || !Array.isArray(doc.sections)) {
    $("#rules-body").replaceChildren(
      cell("p", "The rules of this table, in short, are its badges above.", "muted"));
    return;
  }
  if (doc.label) $("#rules-title").textContent = doc.label;
  if (Array.isArray(doc.badges)) drawBadges($("#rules-badges"), doc.badges);
  $("#rules-body").replaceChildren(...doc.sections.flatMap((section) => [
    cell("h3", String(section.heading || "")),
    cell("p", String(section.text || "")),
  ]));
}
