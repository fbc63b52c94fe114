// Short messages to the player: the screen reader's live region, the toast for refusals, and
// the note above the hand that says why a dimmed card cannot be played.

const $ = (selector) => document.querySelector(selector);

/** Say ``text`` to screen readers (the live region keeps the last dozen lines). */
export function announce(text) {
  if (!text) return;
  const region = $("#announcer");
  const line = document.createElement("p");
  line.textContent = text;
  region.append(line);
  while (region.childElementCount > 12) region.firstElementChild.remove();
}

let toastTimer = null;
/** Show a refusal or a problem for a few seconds (an alert: screen readers read it at once). */
export function toast(text) {
  const box = $("#toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 5000);
}

let noteTimer = null;
/** Show ``text`` just above the hand for a moment. */
export function cardNote(text) {
  const note = $("#card-note");
  note.textContent = text;
  note.hidden = false;
  clearTimeout(noteTimer);
  noteTimer = setTimeout(() => { note.hidden = true; }, 3000);
}
