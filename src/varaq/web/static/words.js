// Sentences about the game: what the live region announces, what the seats, the status line
// and the hand summary say.
//
// Every word a player reads or hears comes from here. Names come from a ``seating`` (see
// seats.js): "You play" for the viewer, "West plays" for the others. Negative numbers are
// written with the minus sign (U+2212) everywhere.

import { cardPhrase } from "./cards.js";

export const MINUS = "\u2212";

/** −47, 0, 120: a total as the table writes it. */
export function number(n) {
  return n < 0 ? `${MINUS}${-n}` : String(n);
}

/** +71, −40, 0: points as a score sheet writes them. */
export function signed(n) {
  return n > 0 ? `+${n}` : number(n);
}

/** What a seat's plate shows for its bid: "Bid 4", "Nil", "Blind nil" or "—". */
export function bidWords(bid) {
  if (bid === null || bid === undefined) return "—";
  if (bid === "blind") return "Blind nil";
  if (bid === 0 || bid === "nil") return "Nil";
  return `Bid ${bid}`;
}

/** "1 trick", "3 tricks". */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "You play" for the viewer, "West plays" for another seat. */
function says(seating, seat, you, other) {
  return `${seating.name(seat)} ${seating.isMe(seat) ? you : other}`;
}

/** "Your" for the viewer, "Partner's" for another seat. */
export function whose(seating, seat) {
  return seating.isMe(seat) ? "Your" : `${seating.name(seat)}'s`;
}

/** One event as a sentence: "West plays the nine of spades. East wins the trick." */
export function eventWords(event, view, seating) {
  const say = (seat, you, other) => says(seating, seat, you, other);
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
      parts.push(seating.isMe(seat) && event.action
        ? `You pass ${cardPhrase(event.action)}.`
        : `${say(seat, "pass", "passes")} a card.`);
      break;
    case "deal":
      parts.push(view
        ? `${say(seat, "deal", "deals")} hand ${view.hand_no}.`
        : `${say(seat, "deal", "deals")}.`);
      break;
    case "concede": {
      const side = event.side || event.seat;
      parts.push(side === seating.mySide ? "You concede." : `${seating.sideName(side)} concede.`);
      break;
    }
    default:
      break;
  }
  if (event.hand) {
    const s = event.hand.score;
    parts.push(`Hand over: ${seating.sideName(seating.mySide)} ${signed(s[seating.mySide])}, ${
      seating.sideName(seating.theirSide)} ${signed(s[seating.theirSide])}.`);
  }
  if (event.winner) parts.push(`${seating.sideName(event.winner)} win the match.`);
  return parts.join(" ");
}

/** The status line under the table: whose move it is and what the viewer may do. */
export function statusText(view, seating) {
  const mine = !seating.watching && view.turn === seating.me;
  const turnName = view.turn ? seating.name(view.turn) : "";
  switch (view.phase) {
    case "blind":
      return mine ? "Blind nil, or look at your cards?" : `${turnName} is thinking about blind nil…`;
    case "bid":
      return mine ? "Your bid." : `${turnName} is bidding…`;
    case "exchange":
      return mine ? "The blind nil exchange." : `${turnName} is choosing cards to pass…`;
    case "play":
      if (!mine) return `${turnName} to play…`;
      return view.trick.length ? "Your turn — follow suit if you can." : "Your lead.";
    case "deal":
      return view.history.length ? "Hand over." : "Ready to deal.";
    case "over":
      return "Match over.";
    default:
      return "";
  }
}

const MADE = { true: "made", false: "failed" };

/** One line of a side's points, without the points: "Contract 7 made", "Partner's nil failed". */
export function partWords(part, seating) {
  switch (part.kind) {
    case "contract":
      return part.made
        ? `Contract ${part.number} made (${plural(part.tricks, "trick")})`
        : `Contract ${part.number} set (${plural(part.tricks, "trick")})`;
    case "nil":
      return `${whose(seating, part.seat)} nil ${MADE[part.made]}`;
    case "blind_nil":
      return `${whose(seating, part.seat)} blind nil ${MADE[part.made]}`;
    case "bags":
      return plural(part.number, "bag");
    case "bag_penalty":
      return part.number > 1 ? `Bag penalty × ${part.number}` : "Bag penalty";
    case "boston":
      return "All 13 tricks";
    default:
      return part.kind;
  }
}

/** What decided the hand, from the server's ``headline``: "Partner's nil failed: −100". */
export function headlineWords(headline, seating) {
  if (!headline) return "";
  const points = signed(headline.points);
  const side = headline.side;
  const sideName = seating.sideName(side);
  const ours = side === seating.mySide;
  switch (headline.kind) {
    case "contract":
      if (headline.made) return `${sideName} made ${headline.number}: ${points}`;
      return ours
        ? `${seating.sideName(seating.theirSide)} set you: ${points}`
        : `You set ${sideName}: ${points}`;
    case "nil":
    case "blind_nil":
      return `${partWords(headline, seating)}: ${points}`;
    case "bag_penalty":
      return `${ours ? "Your" : `${sideName}'s`} bags cost ${points}`;
    case "boston":
      return `${sideName} took all 13 tricks: ${points}`;
    default:
      return `${partWords(headline, seating)}: ${points}`;
  }
}
