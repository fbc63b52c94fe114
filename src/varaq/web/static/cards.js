// Cards as the server writes them ("QH", "TS", "BJ") turned into words and drawn faces.
//
// The server's card text is the only card identity the client knows; names and faces are
// derived here so that the accessible name of a button and the picture on it always agree.

const SUITS = {
  S: { symbol: "♠", name: "spades", red: false },
  H: { symbol: "♥", name: "hearts", red: true },
  D: { symbol: "♦", name: "diamonds", red: true },
  C: { symbol: "♣", name: "clubs", red: false },
};

const RANK_NAMES = {
  2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine",
  T: "Ten", J: "Jack", Q: "Queen", K: "King", A: "Ace",
};

export const SEAT_WORDS = { N: "North", E: "East", S: "South", W: "West" };

function isJoker(code) {
  return code === "BJ" || code === "LJ";
}

function suitOf(code) {
  return isJoker(code) ? "S" : code[1];
}

/** "Queen of hearts", "Ten of spades", "Big joker": the accessible name of a card button. */
export function cardName(code) {
  if (code === "BJ") return "Big joker";
  if (code === "LJ") return "Little joker";
  return `${RANK_NAMES[code[0]]} of ${SUITS[code[1]].name}`;
}

/** "the queen of hearts": a card inside a sentence ("West plays the queen of hearts"). */
export function cardPhrase(code) {
  return `the ${cardName(code).toLowerCase()}`;
}

function rankLabel(code) {
  return code[0] === "T" ? "10" : code[0];
}

// Pip positions (x%, y%) of the number cards, laid out like a printed deck.
const PIPS = {
  2: [[50, 12], [50, 88]],
  3: [[50, 12], [50, 50], [50, 88]],
  4: [[25, 12], [75, 12], [25, 88], [75, 88]],
  5: [[25, 12], [75, 12], [50, 50], [25, 88], [75, 88]],
  6: [[25, 12], [75, 12], [25, 50], [75, 50], [25, 88], [75, 88]],
  7: [[25, 12], [75, 12], [50, 31], [25, 50], [75, 50], [25, 88], [75, 88]],
  8: [[25, 12], [75, 12], [50, 31], [25, 50], [75, 50], [50, 69], [25, 88], [75, 88]],
  9: [[25, 12], [75, 12], [25, 37], [75, 37], [50, 50], [25, 63], [75, 63], [25, 88], [75, 88]],
  T: [[25, 12], [75, 12], [50, 24], [25, 37], [75, 37], [25, 63], [75, 63], [50, 76],
      [25, 88], [75, 88]],
};

// A card face's marks (ranks, suits, pips) are drawn by CSS from ``data-glyph`` (style.css:
// ``[data-glyph]::before``), not written as text: the face is a picture, and its one text is
// the card's name, so that "7♠ ♠♠♠♠♠ 7♠" is never read out or matched against "Seven of
// spades" (axe's label-in-name rule).
function el(tag, className, glyph) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (glyph !== undefined) node.dataset.glyph = glyph;
  return node;
}

function corner(code, where) {
  const box = el("span", `corner ${where}`);
  if (isJoker(code)) {
    box.append(el("span", "corner-rank joker-word", "J O K E R"));
    return box;
  }
  box.append(el("span", "corner-rank", rankLabel(code)));
  box.append(el("span", "corner-suit", SUITS[code[1]].symbol));
  return box;
}

function centre(code) {
  const middle = el("span", "card-centre");
  if (isJoker(code)) {
    middle.classList.add("joker");
    middle.append(el("span", "joker-star", "★"));
    middle.append(el("span", "joker-size", code === "BJ" ? "BIG" : "LITTLE"));
    return middle;
  }
  const rank = code[0];
  const symbol = SUITS[code[1]].symbol;
  if (rank === "A") {
    middle.classList.add("ace");
    middle.append(el("span", "pip ace-pip", symbol));
  } else if (rank === "J" || rank === "Q" || rank === "K") {
    middle.classList.add("court");
    const frame = el("span", "court-frame");
    frame.append(el("span", "court-letter", rank));
    frame.append(el("span", "court-suit", symbol));
    middle.append(frame);
  } else {
    middle.classList.add("pips");
    for (const [x, y] of PIPS[rank]) {
      const pip = el("span", y > 50 ? "pip flipped" : "pip", symbol);
      pip.style.left = `${x}%`;
      pip.style.top = `${y}%`;
      middle.append(pip);
    }
  }
  return middle;
}

/** Fill ``node`` with the face of ``code`` (corners, pips or court frame) and its colours. */
export function drawFace(node, code) {
  node.classList.add("card", "face");
  node.dataset.card = code;
  const red = code === "BJ" || (!isJoker(code) && SUITS[code[1]].red);
  node.classList.toggle("red", red);
  node.classList.add(`suit-${suitOf(code)}`);
  node.replaceChildren(corner(code, "tl"), centre(code), corner(code, "br"));
  return node;
}

/** A picture of a card (not a control): for the trick, the last trick and the summaries. */
export function cardPicture(code) {
  const node = drawFace(el("span"), code);
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", cardName(code));
  return node;
}

/** A face-down card. */
export function cardBack() {
  const node = el("span", "card back");
  node.setAttribute("aria-hidden", "true");
  return node;
}
