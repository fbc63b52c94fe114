// Sentences about the game: what the live region announces and what the seats show.
//
// Kept apart from the page code so that every word a player reads or hears comes from one
// place; ``nameOf`` is passed in because names come from the server with each game.

import { cardPhrase } from "./cards.js";

const SIDE_WORDS = { NS: "North and South", EW: "East and West" };

/** "You play" but "West plays". */
function says(nameOf, seat, you, other) {
  return `${nameOf(seat)} ${seat === "S" ? you : other}`;
}

/** What a seat's plate shows for its bid: "Bid 4", "Nil", "Blind nil" or "—". */
export function bidWords(bid) {
  if (bid === null || bid === undefined) return "—";
  if (bid === "blind") return "Blind nil";
  if (bid === 0 || bid === "nil") return "Nil";
  return `Bid ${bid}`;
}

/** +71, −40, 0: points as a score sheet writes them. */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

/** One event as a sentence: "West plays the nine of spades. East wins the trick." */
export function eventWords(event, view, nameOf) {
  const say = (seat, you, other) => says(nameOf, seat, you, other);
  const seat = event.seat;
  const parts = [];
  switch (event.kind) {
    case "play":
      parts.push(`${say(seat, "play", "plays")} ${cardPhrase(event.action)}.`);
      if (event.trick) parts.push(`${say(event.trick.winner, "win", "wins")} the trick.`);
      break;
    case "bid":
      parts.push(event.action === "nil"
        ? `${say(seat, "bid", "bids")} nil.`
        : `${say(seat, "bid", "bids")} ${String(event.action).replace("bid ", "")}.`);
      break;
    case "blind_nil":
      parts.push(`${say(seat, "bid", "bids")} blind nil!`);
      break;
    case "look":
      parts.push(`${say(seat, "look", "looks")} at the cards.`);
      break;
    case "pass":
      parts.push(seat === "S" && event.action
        ? `You pass ${cardPhrase(event.action)}.`
        : `${say(seat, "pass", "passes")} a card.`);
      break;
    case "deal":
      parts.push(`${say(seat, "deal", "deals")} hand ${view ? view.hand_no : ""}.`.replace(" .", "."));
      break;
    case "concede": {
      const side = event.side || event.seat;
      parts.push(side === "NS" ? "You concede." : `${SIDE_WORDS[side] || "A side"} concede.`);
      break;
    }
    default:
      break;
  }
  if (event.hand) {
    const s = event.hand.score;
    parts.push(`Hand over: us ${signed(s.NS)}, them ${signed(s.EW)}.`);
  }
  if (event.winner) parts.push(`${SIDE_WORDS[event.winner]} win the match.`);
  return parts.join(" ");
}
