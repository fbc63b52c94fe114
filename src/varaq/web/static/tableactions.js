// @ts-check
// Undo and Claim at the table (issue 18): the two buttons, their words and their requests.
//
// The page never decides either: the server says what an undo takes back (your last bid or
// card and the computer players' answers after it) and whether a claim holds (its solver
// plays the rest of the hand out on the true cards). This module sends the request, and puts
// what came of it in the status line and the live region, in the player's words.

import { request, Refusal } from "./connection.js";
import { button } from "./dom.js";
import { canClaim, canUndo, currentNotice } from "./store.js";

/** @typedef {import("./store.js").State} State */
/** @typedef {import("./store.js").Notice} Notice */
/** @typedef {{type: string, [key: string]: any}} Message */

/**
 * What the page lends this module: the state, the store's dispatch, a way to take a STATE
 * answer, and the live region.
 * @typedef {{
 *   state: () => State,
 *   dispatch: (message: Message, draw?: "all" | "table" | "state" | "none") => void,
 *   acceptState: (answer: object) => void,
 *   announce: (text: string) => void,
 *   toast: (text: string) => void,
 * }} Page
 */

/** @type {Page | null} */
let page = null;
let busy = false;

/** @param {string} id @param {string} what */
function post(id, what) {
  return request("POST", `/api/games/${encodeURIComponent(id)}/${what}`, {});
}

/** Wire the buttons once; keys come through ``undo`` and ``claim`` (input.js). @param {Page} p */
export function wireTableActions(p) {
  page = p;
  button("#undo-button").addEventListener("click", () => { undo(); });
  button("#claim-button").addEventListener("click", () => { claim(); });
}

/** Take back the last bid or card. */
export async function undo() {
  if (!page || busy) return;
  const s = page.state();
  if (!s.id || !canUndo(s)) return;
  busy = true;
  try {
    const answer = await post(s.id, "undo");
    page.acceptState(answer);
    page.dispatch({ type: "undone", count: answer.undo });
    page.announce(noticeWords(currentNotice(page.state())));
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    page.toast(error.message);
  } finally {
    busy = false;
  }
}

/** Claim every trick left for our side. */
export async function claim() {
  if (!page || busy) return;
  const s = page.state();
  if (!s.id || !canClaim(s) || (s.table && s.table.claim)) return;
  busy = true;
  try {
    const answer = await post(s.id, "claim");
    page.acceptState(answer);
    if (answer.claim === "offered") {
      page.announce("Your claim holds: it is put to the other side.");
    } else {
      page.dispatch({ type: "claimed", seat: s.you || "S" });
      page.announce(noticeWords(currentNotice(page.state())));
    }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const reason = error.message.replace(/^claim refused: /, "");
    page.dispatch({ type: "claim-refused", reason });
    page.announce(`Claim refused: ${sentence(reason)}`);
  } finally {
    busy = false;
  }
}

/** Answer the other side's claim put to this person: accept (the hand ends) or decline.
 * @param {boolean} agree */
async function answerClaim(agree) {
  if (!page || busy) return;
  const s = page.state();
  if (!s.id) return;
  busy = true;
  try {
    const answer = await post(s.id, agree ? "accept" : "decline");
    if (agree) page.acceptState(answer);
    page.announce(agree ? "You accepted the claim." : "You declined the claim: play goes on.");
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    page.toast(error.message);
  } finally {
    busy = false;
  }
}

/** The claim last seen put to the table, and the version it was seen at (to tell its maker
 * when it was declined: it ended with no move made). */
let lastClaim = /** @type {{seat: string, version: number} | null} */ (null);

/**
 * A claim waiting for the other side, in the status line: the question with its two answers
 * for a person asked, a word of waiting for everyone else.
 * @param {State} s
 * @param {HTMLElement} status
 * @param {(seat: string) => boolean} isMe
 * @param {(seat: string) => string} nameOf
 */
function drawClaimOffer(s, status, isMe, nameOf) {
  const claim = (s.table && s.table.claim) || null;
  const view = s.shown;
  if (!claim && lastClaim && isMe(lastClaim.seat) && view && view.phase === "play"
      && s.version === lastClaim.version && page) {
    page.toast("The other side declined your claim: play on.");
  }
  lastClaim = claim ? { seat: claim.seat, version: s.version } : null;
  if (!claim) return;
  const box = document.createElement("span");
  box.className = "claim-offer";
  const waiting = claim.waiting || [];
  if (s.you && waiting.includes(s.you)) {
    box.append(`${nameOf(claim.seat)} claims every trick left, and the server's solver agrees.`);
    for (const [label, agree] of /** @type {[string, boolean][]} */ ([
      ["Accept claim", true], ["Decline", false]])) {
      const answer = document.createElement("button");
      answer.type = "button";
      answer.className = agree ? "primary small" : "secondary small";
      answer.textContent = label;
      answer.addEventListener("click", () => { answerClaim(agree); });
      box.append(" ", answer);
    }
  } else {
    const who = waiting.map(nameOf).join(" and ");
    box.textContent = isMe(claim.seat)
      ? `Your claim holds; waiting for ${who} to accept it.`
      : `${nameOf(claim.seat)} claims every trick left; waiting for ${who}.`;
  }
  status.append(" ", box);
}

/**
 * Enable the buttons for the state on screen and add any notice to the status line (drawn
 * just before by the panel). Undo shows only at a single-player table.
 * @param {State} s
 * @param {(seat: string) => boolean} isMe
 * @param {(seat: string) => string} nameOf
 */
export function drawTableActions(s, isMe, nameOf) {
  const undoButton = button("#undo-button");
  undoButton.hidden = s.kind !== "solo";
  undoButton.disabled = !canUndo(s);
  const pending = Boolean(s.table && s.table.claim);
  const claimButton = button("#claim-button");
  claimButton.hidden = s.kind === "daily";  // everyone plays every card of the daily
  claimButton.disabled = !canClaim(s) || pending;
  const status = document.getElementById("status");
  if (!status) return;
  drawClaimOffer(s, status, isMe, nameOf);
  const words = noticeWords(currentNotice(s), isMe, nameOf);
  if (!words) return;
  const note = document.createElement("span");
  note.className = "table-notice";
  note.dataset.kind = /** @type {Notice} */ (currentNotice(s)).kind;
  note.textContent = words;
  status.append(" ", note);
}

/**
 * The notice in words.
 * @param {Notice | null} notice
 * @param {(seat: string) => boolean} [isMe]
 * @param {(seat: string) => string} [nameOf]
 */
export function noticeWords(notice, isMe = () => true, nameOf = (seat) => seat) {
  if (!notice) return "";
  if (notice.kind === "claim-refused") return `Claim refused: ${sentence(notice.text || "")}`;
  if (notice.kind === "undo") {
    return notice.count && notice.count > 1
      ? `Taken back: your move and the ${notice.count - 1} after it.`
      : "Taken back: your move.";
  }
  const seat = notice.seat || "";
  return isMe(seat) ? "Your claim holds: your side takes every trick left."
    : `${nameOf(seat)} claimed every trick left, and the claim holds.`;
}

/** The server's reason as a sentence: a capital first and a full stop. @param {string} text */
function sentence(text) {
  const trimmed = text.trim();
  if (!trimmed) return "";
  const capital = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * The live region's words for an undo or a claim event ("" for any other event).
 * @param {{kind: string, seat?: string | null}} event
 * @param {(seat: string) => boolean} isMe
 * @param {(seat: string) => string} nameOf
 */
export function tableActionWords(event, isMe, nameOf) {
  if (event.kind === "undo") return "Moves taken back.";
  if (event.kind === "claim" && event.seat) {
    return noticeWords({ kind: "claim", version: 0, seat: event.seat }, isMe, nameOf);
  }
  return "";
}
