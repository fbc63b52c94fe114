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

const timers = new Map();

/** Show ``text`` in ``box`` for ``ms`` milliseconds (a newer message restarts the clock). */
function flash(box, text, ms) {
  box.textContent = text;
  box.hidden = false;
  clearTimeout(timers.get(box));
  timers.set(box, setTimeout(() => { box.hidden = true; }, ms));
}

/** Show a refusal or a problem for a few seconds (an alert: screen readers read it at once). */
export function toast(text) {
  flash($("#toast"), text, 5000);
}

/** Show ``text`` just above the hand for a moment. */
export function cardNote(text) {
  flash($("#card-note"), text, 3000);
}
