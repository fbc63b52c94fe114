// What the rules and help pages share: the theme switch (the same choice as the table's, kept
// in localStorage) and small helpers to build text safely (the New game form uses them too).

const THEME_KEY = "varaq-theme";

function effectiveTheme() {
  const chosen = document.documentElement.dataset.theme;
  if (chosen) return chosen;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function labelToggle(button) {
  const dark = effectiveTheme() === "dark";
  button.setAttribute("aria-label", dark ? "Switch to light theme" : "Switch to dark theme");
}

/** Apply the saved theme and wire the header's toggle. */
export function setUpPage() {
  const saved = localStorage.getItem(THEME_KEY);
  if (saved) document.documentElement.dataset.theme = saved;
  const button = document.getElementById("theme-toggle");
  if (!button) return;
  labelToggle(button);
  button.addEventListener("click", () => {
    const next = effectiveTheme() === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    localStorage.setItem(THEME_KEY, next);
    labelToggle(button);
  });
}

/** An element with a class and text (never HTML). */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A paragraph from text in which **stars** mark the words to stress. */
export function richLine(tag, text) {
  const node = document.createElement(tag);
  text.split(/(\*\*[^*]+\*\*)/).forEach((part) => {
    if (part.startsWith("**") && part.endsWith("**")) {
      node.append(el("strong", "", part.slice(2, -2)));
    } else if (part) {
      node.append(document.createTextNode(part));
    }
  });
  return node;
}

/** A list of badges, the first one marked as the table's name. */
export function badgeList(badges) {
  const list = el("ul", "badges");
  for (const badge of badges) list.append(el("li", "", badge));
  return list;
}
