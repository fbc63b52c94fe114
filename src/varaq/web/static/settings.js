// The player's settings, remembered in localStorage: theme, the computer players' speed,
// whether the cards make sounds (off until the player turns them on), and how the cards look
// (a four-colour deck, larger cards on phones, the design on their backs).

const KEYS = {
  theme: "varaq-theme", speed: "varaq-speed", sound: "varaq-sound",
  deck: "varaq-deck", size: "varaq-card-size", back: "varaq-card-back",
};
export const SPEEDS = ["slow", "normal", "fast"];
/** The designs on the backs of the cards (drawn by deck.css), the first one the default. */
export const BACKS = ["lattice", "ripples", "diamonds", "spades"];

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Private windows may refuse storage: the setting still holds for this page.
  }
}

/** "light", "dark", or null to follow the system. */
export function theme() {
  const value = read(KEYS.theme);
  return value === "light" || value === "dark" ? value : null;
}

/** The theme on screen now (the chosen one, or the system's). */
export function effectiveTheme() {
  return theme() || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
}

export function setTheme(value) {
  write(KEYS.theme, value);
  document.documentElement.dataset.theme = value;
}

/** "slow", "normal" (the default) or "fast". */
export function speed() {
  const value = read(KEYS.speed);
  return SPEEDS.includes(value) ? value : "normal";
}

export function setSpeed(value) {
  if (SPEEDS.includes(value)) write(KEYS.speed, value);
}

/** Card sounds: off unless the player turned them on. */
export function soundOn() {
  return read(KEYS.sound) === "on";
}

export function setSound(on) {
  write(KEYS.sound, on ? "on" : "off");
}

/** How long the table page dwells on each step at each speed, in milliseconds: a card, a bid,
 * a finished trick before it is swept up, and the sweep. The server's computer players keep a
 * matching tempo (service/settings.py, SPEEDS). At every speed a card's dwell is shorter than
 * the server's shortest pause, and a trick's dwell and sweep together shorter than its pause
 * after a trick, so the page never falls behind the table and then hurries through the cards
 * it owes (normal's trick once lay 1.42 s against the server's 1.2, and the next cards came
 * 0.33 s apart). Fast sweeps a trick up as soon as its last card has been seen; slow leaves
 * time for every card. */
export const PACES = {
  slow: { card: 900, bid: 700, trick: 1500, collect: 400 },
  normal: { card: 330, bid: 260, trick: 880, collect: 300 },
  fast: { card: 110, bid: 90, trick: 80, collect: 120 },
};

/** The four-colour deck (♠ black, ♥ red, ♦ blue, ♣ green): off unless chosen. */
export function fourColour() {
  return read(KEYS.deck) === "four";
}

export function setFourColour(on) {
  write(KEYS.deck, on ? "four" : "two");
  applyDeck();
}

/** Larger cards and corner indexes on phones: off unless chosen. */
export function largeCards() {
  return read(KEYS.size) === "large";
}

export function setLargeCards(on) {
  write(KEYS.size, on ? "large" : "normal");
  applyDeck();
}

/** The design on the backs of the cards (one of ``BACKS``). */
export function cardBackDesign() {
  const value = read(KEYS.back);
  return BACKS.includes(value) ? value : BACKS[0];
}

export function setCardBack(value) {
  if (BACKS.includes(value)) write(KEYS.back, value);
  applyDeck();
}

/** Put the deck settings on the page's root element, where deck.css draws them from:
 * ``data-deck="four"``, ``data-cards="large"``, ``data-back="ripples"``. */
export function applyDeck() {
  const root = document.documentElement;
  if (fourColour()) root.dataset.deck = "four";
  else delete root.dataset.deck;
  if (largeCards()) root.dataset.cards = "large";
  else delete root.dataset.cards;
  root.dataset.back = cardBackDesign();
}

/** Show the settings in the top bar's controls (and turn sound on or off to match). */
function showSettings(sound) {
  const chosen = theme();
  if (chosen) document.documentElement.dataset.theme = chosen;
  const dark = effectiveTheme() === "dark";
  document.querySelector("#theme-toggle").setAttribute("aria-label",
    dark ? "Switch to light theme" : "Switch to dark theme");
  document.querySelector("#speed-select").value = speed();
  const on = soundOn();
  document.querySelector("#sound-toggle").setAttribute("aria-pressed", String(on));
  sound.setEnabled(on);
}

/** Wire the "Cards" dialog: its controls show the saved choices and change them at once. */
function wireDeck() {
  const opener = document.querySelector("#deck-button");
  const dialog = document.querySelector("#deck-dialog");
  if (!opener || !dialog) return;
  const four = dialog.querySelector("#deck-four");
  const large = dialog.querySelector("#deck-large");
  const backs = [...dialog.querySelectorAll('input[name="card-back"]')];
  opener.addEventListener("click", () => {
    four.checked = fourColour();
    large.checked = largeCards();
    for (const choice of backs) choice.checked = choice.value === cardBackDesign();
    dialog.showModal();
  });
  four.addEventListener("change", () => setFourColour(four.checked));
  large.addEventListener("change", () => setLargeCards(large.checked));
  for (const choice of backs) {
    choice.addEventListener("change", () => { if (choice.checked) setCardBack(choice.value); });
  }
}

/** Wire the top bar's theme, speed, sound and card controls; ``onSpeed`` hears a new speed. */
export function wireSettings({ sound, onSpeed }) {
  applyDeck();
  wireDeck();
  showSettings(sound);
  document.querySelector("#theme-toggle").addEventListener("click", () => {
    setTheme(effectiveTheme() === "dark" ? "light" : "dark");
    showSettings(sound);
  });
  document.querySelector("#speed-select").addEventListener("change", (event) => {
    setSpeed(event.target.value);
    onSpeed(speed());
  });
  document.querySelector("#sound-toggle").addEventListener("click", () => {
    setSound(!soundOn());
    showSettings(sound);
    sound.play("card");
  });
}
