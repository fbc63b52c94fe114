// The player's settings, remembered in localStorage: theme, the computer players' speed, and
// whether the cards make sounds (off until the player turns them on).

const KEYS = { theme: "varaq-theme", speed: "varaq-speed", sound: "varaq-sound" };
export const SPEEDS = ["slow", "normal", "fast"];

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

/** How long the page's own animations last at each speed, as a factor of "normal". */
export const SPEED_FACTOR = { slow: 1.6, normal: 1, fast: 0.45 };

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

/** Wire the top bar's theme, speed and sound controls; ``onSpeed`` hears a new speed. */
export function wireSettings({ sound, onSpeed }) {
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
