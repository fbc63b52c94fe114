// Drawing a view onto the table: the score bar, the rules' badges, the four seats and the
// trick in the middle. The hand has its own module (hand.js).
//
// Everything is drawn from the viewer's chair (``seating``, see seats.js), so the same code
// draws a table for a player at any seat, a tutorial's fixed position or a review page that
// steps through tricks: it reads a view and writes the DOM, and keeps no state of its own.

import { cardBack, cardPicture } from "./cards.js";
import { PLACES, trickSeats } from "./seats.js";
import { bidWords, number, plural } from "./words.js";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function seatBox(place) {
  const seat = el("div", `seat pos-${place}`);
  seat.id = `seat-${place}`;
  seat.dataset.place = place;
  seat.setAttribute("role", "group");
  if (place !== "bottom") {
    const backs = el("div", "seat-backs");
    backs.setAttribute("aria-hidden", "true");
    seat.append(backs);
  }
  const plate = el("div", "seat-plate");
  const dealer = el("span", "seat-dealer", "D");
  dealer.title = "Dealer";
  dealer.hidden = true;
  plate.append(el("span", "seat-name"), dealer, el("span", "seat-bid", "—"),
    el("span", "seat-taken", "0 tricks"));
  seat.append(plate);
  return seat;
}

/** Put the four seats and the trick's four slots into ``felt`` (once; later calls do nothing). */
export function buildFelt(felt) {
  if (felt.querySelector(".seat")) return;
  const trick = el("div", "trick");
  trick.id = "trick";
  trick.setAttribute("role", "group");
  trick.setAttribute("aria-label", "Cards on the table");
  trick.append(...PLACES.map((place) => {
    const slot = el("div", `trick-slot slot-${place}`);
    slot.dataset.place = place;
    return slot;
  }));
  const [bottom, left, top, right] = PLACES.map(seatBox);
  felt.prepend(top, left, right, trick);
  felt.append(bottom);
}

function sideBox(which) {
  const box = el("div", `side side-${which}`);
  box.id = `side-${which}`;
  const bags = el("div", "bags");
  bags.dataset.bags = "";
  const meter = el("span", "bags-meter");
  meter.setAttribute("aria-hidden", "true");
  meter.append(el("span", "bags-fill"));
  bags.append(el("span", "bags-text", "Bags 0"), meter);
  box.append(el("div", "side-name"), el("div", "side-total", "0"), el("div", "side-detail", "—"),
    bags);
  return box;
}

/** Build the score bar's boxes inside ``bar`` (once). */
export function buildScorebar(bar) {
  if (bar.childElementCount) return;
  const middle = el("div", "scorebar-middle");
  const target = el("div", "target", "Target");
  target.id = "target";
  const handNo = el("div", "hand-no", "Hand 1");
  handNo.id = "hand-no";
  const broken = el("div", "broken", "♠ broken");
  broken.id = "broken";
  broken.hidden = true;
  middle.append(target, handNo, broken);
  bar.append(sideBox("us"), middle, sideBox("them"));
}

/** A side's contract so far and the tricks its contract bidders have won, while bidding is done. */
function sideContract(view, seats) {
  const bids = seats.map((s) => view.bids[s]);
  if (bids.some((b) => b === null)) return null;
  const contract = bids.reduce((sum, b) => sum + (typeof b === "number" ? b : 0), 0);
  const won = seats
    .filter((s) => typeof view.bids[s] === "number" && view.bids[s] > 0)
    .reduce((sum, s) => sum + view.taken[s], 0);
  return { contract, won };
}

function drawSide(box, view, seating, side) {
  const other = side === "NS" ? "EW" : "NS";
  box.querySelector(".side-name").textContent = seating.sideName(side);
  box.querySelector(".side-total").textContent = number(view.totals[side]);
  const playing = view.phase === "play" || view.phase === "exchange";
  const c = playing ? sideContract(view, seating.sideSeats(side)) : null;
  const bidding = view.phase === "bid" || view.phase === "blind";
  box.querySelector(".side-detail").textContent = c
    ? (c.contract ? `Contract ${c.contract} · won ${c.won}` : "Nil only")
    : bidding ? "Bidding…" : "—";
  const limit = view.bag_limit || 10;
  const bags = view.bags[side];
  const penaltyOn = !(view.badges || []).includes("No bag penalty");
  const close = penaltyOn && bags >= limit - 3;
  box.querySelector(".bags-text").textContent = !penaltyOn ? `Bags ${bags}`
    : close ? `Bags ${bags}/${limit} · ${limit - bags} to penalty` : `Bags ${bags}/${limit}`;
  box.querySelector(".bags-fill").style.width = `${Math.min(100, (100 * bags) / limit)}%`;
  const meter = box.querySelector("[data-bags]");
  meter.classList.toggle("danger", penaltyOn && bags >= limit - 2);
  meter.title = penaltyOn ? `${plural(limit - bags, "more bag")} before the penalty` : "Bags";
  box.classList.toggle("leading", view.totals[side] > view.totals[other]);
}

/** The score bar: each side's total, contract, bags; the target and the hand's number. */
export function drawScorebar(bar, view, seating) {
  buildScorebar(bar);
  drawSide(bar.querySelector(".side-us"), view, seating, seating.mySide);
  drawSide(bar.querySelector(".side-them"), view, seating, seating.theirSide);
  bar.querySelector("#target").textContent = `Target ${view.target}`;
  bar.querySelector("#hand-no").textContent = `Hand ${view.hand_no || 1}`;
  bar.querySelector("#broken").hidden = !(view.phase === "play" && view.broken);
}

/** The table's rules as short badges ("Classic", "Target 500", "2♣ leads"). */
export function drawBadges(list, badges) {
  const text = (badges || []).join("|");
  if (list.dataset.text === text) return;
  list.dataset.text = text;
  list.replaceChildren(...(badges || []).map((b) => el("li", "", b)));
}

/** Each seat's name, bid, tricks, dealer button, turn glow and cards left. */
export function drawSeats(felt, view, seating) {
  for (const place of PLACES) {
    const seat = seating.seatAt(place);
    const box = felt.querySelector(`#seat-${place}`);
    box.dataset.seat = seat;
    const name = seating.name(seat);
    box.setAttribute("aria-label", name);
    box.querySelector(".seat-name").textContent = name;
    const bid = view.bids[seat];
    const bidBox = box.querySelector(".seat-bid");
    bidBox.textContent = bidWords(bid);
    bidBox.classList.toggle("nil", bid === 0 || bid === "blind");
    bidBox.classList.toggle("pending", bid === null);
    box.querySelector(".seat-taken").textContent = plural(view.taken[seat], "trick");
    box.querySelector(".seat-dealer").hidden = view.dealer !== seat;
    box.classList.toggle("turn", view.turn === seat);
    const backs = box.querySelector(".seat-backs");
    if (backs) {
      const n = view.cards_left[seat];
      if (backs.childElementCount !== n) {
        backs.replaceChildren(...Array.from({ length: n }, () => cardBack()));
      }
    }
  }
}

/**
 * The trick in the middle: ``cards`` as ``[{seat, card}]`` in the order played. A card new to
 * its slot slides in from its seat; the winner (when known) glows; the leader's card carries a
 * small "led" mark, named "led by West" for screen readers.
 */
export function drawTrick(felt, cards, seating, { leader = null, winner = null } = {}) {
  const trick = felt.querySelector("#trick");
  const bySeat = Object.fromEntries(cards.map((c) => [c.seat, c.card]));
  const led = cards.length ? (leader || cards[0].seat) : null;
  for (const place of PLACES) {
    const seat = seating.seatAt(place);
    const slot = trick.querySelector(`.slot-${place}`);
    const card = bySeat[seat] || "";
    const mark = seat === led ? seating.name(seat) : "";
    if (slot.dataset.card !== card || slot.dataset.seat !== seat || slot.dataset.led !== mark) {
      const fresh = slot.dataset.card !== card;
      slot.dataset.card = card;
      slot.dataset.seat = seat;
      slot.dataset.led = mark;
      slot.replaceChildren();
      if (card) {
        const picture = cardPicture(card);
        if (fresh) picture.classList.add("arrive", `from-${place}`);
        slot.append(picture);
      }
      if (card && mark) {
        const badge = el("span", "led-by", "led");
        badge.setAttribute("role", "img");
        badge.setAttribute("aria-label", `led by ${mark}`);
        slot.append(badge);
      }
    }
    slot.classList.toggle("winner", Boolean(winner) && winner === seat && Boolean(card));
  }
  trick.classList.remove(...PLACES.map((p) => `collect-${p}`));
}

/** A finished trick (from an event) as the cards ``drawTrick`` takes. */
export function trickCards(trick) {
  const seats = trickSeats(trick.leader, trick.cards.length);
  return trick.cards.map((card, i) => ({ seat: seats[i], card }));
}

/** Sweep the trick's cards towards the seat that won it. */
export function collectTrick(felt, winner, seating) {
  felt.querySelector("#trick").classList.add(`collect-${seating.placeOf(winner)}`);
}
