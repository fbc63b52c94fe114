// Where each seat sits on the screen and what it is called, seen from the viewer's chair.
//
// The viewer (``view.seat``) is always at the bottom, the partner at the top, the next seat
// clockwise on the left and the seat before on the right. Names come from the server's
// ``names`` map (today "You", "Partner", "West", "East"; online, people's names), so nothing
// here assumes the viewer sits South.

export const SEATS = ["N", "E", "S", "W"];
export const PLACES = ["bottom", "left", "top", "right"];
const SIDES = { N: "NS", S: "NS", E: "EW", W: "EW" };
const FALLBACK = { N: "North", E: "East", S: "South", W: "West" };

/** The seat ``steps`` places clockwise from ``seat``. */
export function clockwise(seat, steps) {
  return SEATS[(SEATS.indexOf(seat) + steps) % 4];
}

/** The seats of a trick in the order played, from its leader. */
export function trickSeats(leader, count) {
  return Array.from({ length: count }, (_, i) => clockwise(leader, i));
}

/**
 * The table as one viewer sees it: places, names and sides.
 *
 * ``name(seat)`` is the display name; ``sideName(side)`` says "You and Partner" for the
 * viewer's side and "East and West" (right, then left) for the other.
 */
export function seating(viewer = "S", names = {}) {
  // A watcher (no seat: ``viewer`` null) looks from South's chair but is nobody at the table.
  const watching = viewer === null;
  const me = SEATS.includes(viewer) ? viewer : "S";
  const order = PLACES.map((_, i) => clockwise(me, i));
  const placeOf = (seat) => PLACES[order.indexOf(seat)];
  const seatAt = (place) => order[PLACES.indexOf(place)];
  const name = (seat) => names[seat] || FALLBACK[seat] || seat;
  const mySide = SIDES[me];
  const sideOf = (seat) => SIDES[seat];
  const sideSeats = (side) => (side === mySide
    ? [me, seatAt("top")]
    : [seatAt("right"), seatAt("left")]);
  return {
    me,
    mySide,
    theirSide: mySide === "NS" ? "EW" : "NS",
    placeOf,
    seatAt,
    name,
    watching,
    isMe: (seat) => !watching && seat === me,
    sideOf,
    sideSeats,
    sideName: (side) => sideSeats(side).map(name).join(" and "),
  };
}
