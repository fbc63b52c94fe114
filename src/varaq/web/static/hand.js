// The viewer's hand as a fan of card buttons.
//
// A card the server lists as legal is playable; every other card is dimmed but stays a button
// (``aria-disabled``), so that tapping it can say why it cannot be played. The buttons are
// kept from one drawing to the next while the cards are the same, so keyboard focus stays put.

import { cardBack, cardName, drawFace } from "./cards.js";

function cardButton(code) {
  const node = document.createElement("button");
  node.type = "button";
  drawFace(node, code);
  node.setAttribute("aria-label", cardName(code));
  return node;
}

/**
 * Draw ``view``'s hand into ``hand``.
 *
 * ``legal``: the cards that may be played now (empty while the page is busy); ``lifted``: the
 * card a first tap lifted; ``picks``: cards chosen for an exchange; ``hinted``: the hint's
 * action; ``deal``: let a fresh hand fly in card by card.
 */
export function drawHand(hand, view, { legal, lifted = null, picks = new Set(), hinted = null,
  deal = true } = {}) {
  const hidden = view.cards_hidden;
  const cards = hidden ? Array.from({ length: view.cards_left[view.seat] }, () => "back") : view.hand;
  const key = cards.join(" ");
  const focused = document.activeElement && hand.contains(document.activeElement)
    ? document.activeElement.dataset.card : null;
  const focusIndex = focused ? [...hand.children].findIndex((b) => b.dataset.card === focused) : -1;
  if (hand.dataset.key !== key) {
    // A new deal (or the first look at a blind nil hand): the cards fly in one by one.
    const before = (hand.dataset.key || "").split(" ");
    const fresh = deal && cards.length >= 13 && !before.some((c) => cards.includes(c));
    hand.dataset.key = key;
    hand.replaceChildren(...cards.map((code, i) => {
      const node = code === "back" ? cardBack() : cardButton(code);
      if (fresh) {
        node.classList.add("dealt");
        node.style.animationDelay = `${i * 35}ms`;
      }
      return node;
    }));
  }
  const n = hand.childElementCount;
  hand.style.setProperty("--n", String(Math.max(n, 1)));
  const exchanging = view.phase === "exchange";
  const passing = new Set(view.passing || []);
  const received = new Set(view.received || []);
  [...hand.children].forEach((node, i) => {
    const offset = i - (n - 1) / 2;
    node.style.setProperty("--rot", `${(offset * 1.5).toFixed(2)}deg`);
    node.style.setProperty("--arc", `${(offset * offset * 0.4).toFixed(1)}px`);
    if (node.tagName !== "BUTTON") return;
    const code = node.dataset.card;
    const playable = legal.has(code) && !passing.has(code);
    node.setAttribute("aria-disabled", String(!playable));
    node.classList.toggle("playable", playable);
    node.classList.toggle("lifted", lifted === code && playable);
    node.classList.toggle("picked", exchanging && picks.has(code));
    node.classList.toggle("passing", passing.has(code));
    node.classList.toggle("received", received.has(code));
    node.classList.toggle("hinted", hinted === code);
  });
  hand.classList.toggle("my-turn", legal.size > 0 && view.phase === "play");
  hand.classList.toggle("hidden-cards", hidden);
  // Keyboard players keep their place: focus stays on the same card, or moves to a neighbour.
  const active = document.activeElement;
  const lostFocus = !active || active === document.body || (focused && !hand.contains(active));
  if (focused && lostFocus) focusCard(hand, Math.max(0, Math.min(focusIndex, n - 1)));
}

/** The playable card buttons, left to right. */
export function playableCards(hand) {
  return [...hand.querySelectorAll("button.playable")];
}

/** Focus the playable card nearest to position ``index``. */
export function focusCard(hand, index) {
  const buttons = [...hand.querySelectorAll("button")];
  const enabled = playableCards(hand);
  if (!enabled.length) return;
  const target = buttons[index] && enabled.includes(buttons[index])
    ? buttons[index]
    : enabled.reduce((best, b) =>
      Math.abs(buttons.indexOf(b) - index) < Math.abs(buttons.indexOf(best) - index) ? b : best);
  target.focus();
}
