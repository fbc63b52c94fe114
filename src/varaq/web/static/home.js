// The home page: three cards, "New game", and "Resume game" for a game that is not over.

import { cardPicture } from "./cards.js";
import { showFriends, startFriends } from "./friends.js";

const $ = (selector) => document.querySelector(selector);
const SAVED = "varaq-game";

// Every page of the game (home and table) keeps its own socket for presence and invitations.
startFriends();

/** Show the home page instead of the table. */
export function showHomePage() {
  const hero = $("#hero-cards");
  if (!hero.childElementCount) hero.append(...["AH", "AS", "KD"].map((code) => cardPicture(code)));
  $("#home").hidden = false;
  $("#table").hidden = true;
  document.body.dataset.page = "home";
  document.title = "Varaq · Spades";
  const saved = savedGame();
  const link = $("#resume-link");
  link.hidden = !saved;
  if (saved) link.href = `/play/${saved}`;
  showFriends();
}

function savedGame() {
  try {
    return localStorage.getItem(SAVED);
  } catch {
    return null;
  }
}

/** Offer the game ``id`` back on the home page while it is not over; forget it once it is. */
export function rememberGame(id, view) {
  try {
    if (view.phase === "over") localStorage.removeItem(SAVED);
    else localStorage.setItem(SAVED, id);
  } catch {
    // No storage: the page still works, it just cannot offer to resume.
  }
}

/** Forget a game the server does not know. */
export function forgetGame() {
  try {
    localStorage.removeItem(SAVED);
  } catch {
    // Nothing was stored.
  }
}
