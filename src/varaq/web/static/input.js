// Turning the player's hands into intentions: tap, click, drag and keys.
//
// Nothing here knows a rule. A card is playable when the drawing marked it so (from the
// server's ``legal``); a dimmed card asks the page to explain; everything else is passed on
// to the page controller (``page``), which sends it to the server.
//
// ``page`` provides: ``view()`` (the view on screen, or null), ``lifted()``, ``lift(code)``,
// ``play(code)``, ``pick(code)`` (exchange), ``explain(code)`` (a dimmed card), ``bid(action)``,
// ``canBid()`` (the bid panel is up) and ``say(text)`` (a short message).

import { anyDialogOpen } from "./dialogs.js";

const DRAG_START = 12;

export function attachInput({ hand, trick, page }) {
  let lastPointer = "mouse";
  let drag = null;
  let suppressClickUntil = 0;
  let bidDigits = "";
  let bidTimer = null;

  function onClick(event) {
    const button = event.target.closest("button");
    if (!button || !hand.contains(button)) return;
    if (performance.now() < suppressClickUntil) return;
    const code = button.dataset.card;
    const view = page.view();
    if (!view) return;
    if (!button.classList.contains("playable")) {
      page.explain(code);
      return;
    }
    if (view.phase === "exchange") {
      page.pick(code);
      return;
    }
    const keyboard = event.detail === 0;
    const touch = lastPointer === "touch" || lastPointer === "pen";
    if (!keyboard && touch && page.lifted() !== code) {
      page.lift(code);
      return;
    }
    page.play(code);
  }

  function onPointerDown(event) {
    lastPointer = event.pointerType || "mouse";
    const button = event.target.closest("button.playable");
    const view = page.view();
    if (!button || !hand.contains(button) || !view || view.phase !== "play") return;
    drag = { button, x: event.clientX, y: event.clientY, moved: false, id: event.pointerId };
  }

  function onPointerMove(event) {
    if (!drag || drag.id !== event.pointerId) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < DRAG_START) return;
    if (!drag.moved) {
      drag.moved = true;
      drag.button.classList.add("dragging");
      trick.classList.add("drop-target");
    }
    drag.button.style.setProperty("--drag-x", `${dx}px`);
    drag.button.style.setProperty("--drag-y", `${dy}px`);
    event.preventDefault();
  }

  function onPointerUp(event) {
    if (!drag || drag.id !== event.pointerId) return;
    const { button, moved } = drag;
    drag = null;
    trick.classList.remove("drop-target");
    if (!moved) return;
    suppressClickUntil = performance.now() + 400;
    button.classList.remove("dragging");
    button.style.removeProperty("--drag-x");
    button.style.removeProperty("--drag-y");
    const area = trick.getBoundingClientRect();
    const inside = event.clientX >= area.left && event.clientX <= area.right
      && event.clientY >= area.top && event.clientY <= area.bottom;
    if (inside && event.type === "pointerup") page.play(button.dataset.card);
  }

  /** "4" bids 4 at once; "1" waits a moment for a second digit (10–13). "0" is nil. */
  function typeBidDigit(digit) {
    clearTimeout(bidTimer);
    bidDigits += digit;
    const n = Number(bidDigits);
    if (bidDigits === "1") {
      bidTimer = setTimeout(flushBidDigits, 900);
      return;
    }
    if (n > 13) {
      page.say(`Bids go from 0 (nil) to 13, not ${n}.`);
      bidDigits = "";
      return;
    }
    flushBidDigits();
  }

  function flushBidDigits() {
    clearTimeout(bidTimer);
    const n = Number(bidDigits);
    bidDigits = "";
    page.bid(n === 0 ? "nil" : `bid ${n}`);
  }

  function onKeyDown(event) {
    if (anyDialogOpen() || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return;
    if (!page.view()) return;
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      const buttons = [...hand.querySelectorAll("button.playable")];
      if (!buttons.length) return;
      event.preventDefault();
      const at = buttons.indexOf(document.activeElement);
      const step = event.key === "ArrowRight" ? 1 : -1;
      const next = at < 0 ? (step > 0 ? 0 : buttons.length - 1)
        : (at + step + buttons.length) % buttons.length;
      buttons[next].focus();
      return;
    }
    // U takes back the last bid or card, C claims every trick left (the page enables them).
    if ((event.key === "u" || event.key === "U") && page.undo) {
      event.preventDefault();
      page.undo();
      return;
    }
    if ((event.key === "c" || event.key === "C") && page.claim) {
      event.preventDefault();
      page.claim();
      return;
    }
    if (!page.canBid()) return;
    if (/^[0-9]$/.test(event.key)) {
      event.preventDefault();
      typeBidDigit(event.key);
    } else if (event.key === "n" || event.key === "N") {
      event.preventDefault();
      page.bid("nil");
    } else if (event.key === "Enter" && bidDigits) {
      event.preventDefault();
      flushBidDigits();
    }
  }

  hand.addEventListener("click", onClick);
  hand.addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove, { passive: false });
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", onPointerUp);
  document.addEventListener("keydown", onKeyDown);
}
