// The viewer's move: the status line, the blind nil choice, the bid buttons and the exchange.
//
// Only the actions the server lists in ``view.legal`` are enabled; this module decides nothing.

import { plural, statusText } from "./words.js";

const $ = (selector) => document.querySelector(selector);

/** The fourteen bid buttons, named "Nil" and "Bid 1" … "Bid 13"; ``onBid`` gets the action. */
export function buildBidGrid(grid, onBid) {
  const buttons = [];
  for (let n = 0; n <= 13; n++) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = n === 0 ? "bid nil" : "bid";
    button.dataset.action = n === 0 ? "nil" : `bid ${n}`;
    button.textContent = n === 0 ? "Nil" : String(n);
    button.setAttribute("aria-label", n === 0 ? "Nil" : `Bid ${n}`);
    button.addEventListener("click", () => onBid(button.dataset.action));
    buttons.push(button);
  }
  grid.replaceChildren(...buttons);
}

function smallButton(text, handler) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "primary small";
  button.textContent = text;
  button.addEventListener("click", handler);
  return button;
}

function blindWorth(view) {
  const badge = (view.badges || []).find((b) => b.startsWith("Blind nil ±"));
  const worth = badge ? badge.slice("Blind nil ±".length) : "200";
  return `It is worth ±${worth}; looking keeps ordinary nil open.`;
}

/**
 * Draw the status line and the panel for ``view``.
 *
 * ``page`` holds what the page knows beyond the view: ``legal`` (a Set), ``hint``
 * (``{action, text}`` or null), ``picks`` (exchange), ``busy`` (an action is on its way),
 * ``nextButton`` / ``newGameButton`` (show those buttons; ``newGameText`` names the second),
 * and the handlers ``onNext`` and
 * ``onNewGame``.
 */
export function drawPanel(view, seating, page) {
  const mine = !seating.watching && view.turn === seating.me;
  const { legal, hint } = page;
  const status = $("#status");
  status.replaceChildren(document.createTextNode(statusText(view, seating)));
  if (hint) {
    const words = document.createElement("span");
    words.className = "hint-text";
    words.textContent = ` Hint: ${hint.text}`;
    status.append(words);
  }
  if (page.nextButton) {
    status.append(" ", smallButton(view.history.length ? "Next hand" : "Deal", page.onNext));
  }
  if (page.newGameButton) {
    status.append(" ", smallButton(page.newGameText || "New game", page.onNewGame));
  }

  $("#blind-panel").hidden = !(view.phase === "blind" && mine && view.cards_hidden);
  for (const button of document.querySelectorAll("#blind-panel [data-action]")) {
    button.disabled = !legal.has(button.dataset.action);
  }
  $("#blind-worth").textContent = blindWorth(view);

  $("#bid-panel").hidden = !(view.phase === "bid" && mine);
  for (const button of document.querySelectorAll("#bid-grid button")) {
    button.disabled = !legal.has(button.dataset.action);
    button.classList.toggle("hinted", Boolean(hint && hint.action === button.dataset.action));
  }

  const exchanging = view.phase === "exchange" && mine;
  $("#exchange-panel").hidden = !exchanging;
  if (exchanging) {
    const need = cardsToPass(view);
    $("#exchange-prompt").textContent =
      `Pick ${plural(need, "card")} to pass to ${seating.name(seating.seatAt("top"))}.`;
    const send = $("#exchange-send");
    send.disabled = page.picks.size !== need || page.busy;
    send.textContent = `Pass ${plural(need, "card")}`;
  }
}

/** How many more cards the viewer passes in a blind nil exchange, as the view states it. */
export function cardsToPass(view) {
  return (view.exchange || 0) - (view.passing || []).length;
}
