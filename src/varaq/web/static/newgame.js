// The new game form: the presets the server offers, and a custom table built from one.
//
// Every option's name, help and range come from ``GET /api/presets`` (the server's own table
// of options), so the form can neither offer a value the server refuses nor refuse one it
// accepts. The form checks the ranges before sending, in the same words as the server; the
// server still checks everything, and its refusal is shown as is.

import { api, Refusal } from "./connection.js";
import { el } from "./pages.js";

const $ = (selector) => document.querySelector(selector);

/** How the custom options are grouped on the form; options the server adds go in "More". */
const GROUPS = [
  ["Match", ["target", "mercy"]],
  ["Nil and blind nil", [
    "nil", "nil_value", "nil_bags_score", "blind_nil", "blind_nil_value", "blind_nil_trail",
    "exchange",
  ]],
  ["Play", ["two_clubs_leads", "jokers"]],
  ["Bags and bonuses", ["bag_limit", "bag_penalty", "min_team_bid", "boston_bonus"]],
];

/** A number field that only means something while a switch is on. */
const NEEDS = {
  nil_value: "nil", nil_bags_score: "nil", blind_nil_value: "blind_nil",
  blind_nil_trail: "blind_nil", exchange: "blind_nil",
};

/** Whole-number options that may be left blank (no value: the rule is off). */
const BLANK_MEANS_NONE = new Set(["mercy"]);

let presetInfo = null;

const minus = (n) => (n < 0 ? `−${-n}` : String(n));
const isSwitch = (info) => info.low === null || info.high === null;

/** Fill the preset list and build the custom options from ``GET /api/presets`` (once). */
export async function loadPresets() {
  if (presetInfo) return presetInfo;
  try {
    presetInfo = await api.presets();
  } catch {
    presetInfo = null;
    const box = $("#new-game-error");
    box.textContent = "The rules cannot be loaded from the server; try again shortly.";
    box.hidden = false;
    return { presets: {}, bounds: {} };
  }
  const select = $("#preset-select");
  select.replaceChildren(...Object.entries(presetInfo.presets).map(([name, spec]) => {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = spec.label || name;
    return option;
  }));
  select.value = presetInfo.presets.classic ? "classic" : select.value;
  buildCustom(presetInfo.bounds || {});
  fillCustom();
  return presetInfo;
}

function optionField(name, info) {
  const input = document.createElement("input");
  input.name = name;
  input.dataset.option = name;
  if (isSwitch(info)) {
    input.type = "checkbox";
    const label = el("label", "check");
    label.title = info.help;
    label.append(input, ` ${info.words}`);
    return label;
  }
  input.type = "number";
  input.inputMode = "numeric";
  input.step = "1";
  input.min = String(info.low);
  input.max = String(info.high);
  if (BLANK_MEANS_NONE.has(name)) input.placeholder = "none";
  // The label is the option's words alone; its range is a description, not part of its name.
  input.id = `option-${name}`;
  const range = el("small", "option-range", BLANK_MEANS_NONE.has(name)
    ? `${minus(info.low)} to below the target, or blank`
    : `${minus(info.low)} to ${minus(info.high)}`);
  range.id = `option-${name}-range`;
  input.setAttribute("aria-describedby", range.id);
  const field = el("div", "field option-field");
  field.title = info.help;
  const words = el("span", "option-words");
  const label = el("label", "", info.words);
  label.htmlFor = input.id;
  words.append(label, range);
  field.append(words, input);
  return field;
}

function buildCustom(bounds) {
  const box = $("#custom-rules");
  const placed = new Set(GROUPS.flatMap(([, names]) => names));
  const extra = Object.keys(bounds).filter((name) => !placed.has(name));
  const groups = extra.length ? [...GROUPS, ["More", extra]] : GROUPS;
  box.replaceChildren(...groups.map(([title, names]) => {
    const group = el("div", "option-group");
    group.append(el("h3", "option-group-title", title));
    const switches = el("div", "option-switches");
    const numbers = el("div", "option-numbers");
    for (const name of names) {
      if (!bounds[name]) continue;
      (isSwitch(bounds[name]) ? switches : numbers).append(optionField(name, bounds[name]));
    }
    if (switches.childElementCount) group.append(switches);
    if (numbers.childElementCount) group.append(numbers);
    return group;
  }));
  const form = $("#new-game-form");
  box.addEventListener("input", (event) => {
    const name = event.target.dataset.option;
    if (!name) return;
    event.target.removeAttribute("aria-invalid");
    if (name === "target") limitMercy();
    if (Object.values(NEEDS).includes(name)) followSwitches(form);
  });
}

/** Mercy must stay below the target: its field's maximum follows the target field. */
function limitMercy() {
  const form = $("#new-game-form");
  const target = Number(form.elements.target && form.elements.target.value);
  if (form.elements.mercy && Number.isInteger(target)) form.elements.mercy.max = String(target - 1);
}

/** Grey out the values of a rule that is switched off (nil values without nil…). */
function followSwitches(form) {
  for (const [name, needs] of Object.entries(NEEDS)) {
    if (form.elements[name] && form.elements[needs]) {
      form.elements[name].disabled = !form.elements[needs].checked;
    }
  }
}

function presetSpec() {
  const spec = presetInfo && presetInfo.presets[$("#preset-select").value];
  return spec && typeof spec === "object" ? spec : {};
}

function optionNames() {
  return Object.keys((presetInfo && presetInfo.bounds) || {});
}

/** Show the chosen preset's values in the custom form, so a custom table starts from it. */
export function fillCustom() {
  const spec = presetSpec();
  const form = $("#new-game-form");
  for (const name of optionNames()) {
    const input = form.elements[name];
    if (!input) continue;
    input.removeAttribute("aria-invalid");
    if (input.type === "checkbox") input.checked = Boolean(spec[name]);
    else input.value = spec[name] === null || spec[name] === undefined ? "" : spec[name];
  }
  limitMercy();
  followSwitches(form);
  $("#new-game-error").hidden = true;
  const bits = [];
  if (spec.target) bits.push(`to ${spec.target}`);
  if (spec.nil === false) bits.push("no nil");
  if (spec.blind_nil) bits.push(`blind nil when ${spec.blind_nil_trail} behind`);
  if (spec.blind_nil && spec.exchange) bits.push(`exchange ${spec.exchange}`);
  if (spec.nil_bags_score) bits.push("nil tricks score");
  $("#preset-summary").textContent = bits.join(", ");
}

/** The number in a field, or a refusal in the form's words. */
function readNumber(name, info, form, rules) {
  const input = form.elements[name];
  const raw = input.value.trim();
  const refuse = (reason) => {
    input.setAttribute("aria-invalid", "true");
    input.focus();
    return new Refusal(reason, 0);
  };
  if (raw === "") {
    if (BLANK_MEANS_NONE.has(name)) return null;
    throw refuse(`${info.words} must be a whole number`);
  }
  const value = Number(raw);
  if (!Number.isInteger(value)) throw refuse(`${info.words} must be a whole number`);
  if (value < info.low || value > info.high) {
    throw refuse(`${info.words} must be between ${minus(info.low)} and ${minus(info.high)}`);
  }
  if (name === "mercy" && value >= rules.target) throw refuse("Mercy must be below the target");
  return value;
}

/** The ``rules`` of ``POST /api/games``: a preset name, or the preset and what differs.
 *  A value out of its range is refused here (a ``Refusal``), in the words of the form. */
export function rulesFromForm() {
  const form = $("#new-game-form");
  const preset = $("#preset-select").value;
  if (!$("#custom-toggle").checked || !presetInfo) return preset;
  const spec = presetSpec();
  const chosen = { target: spec.target };
  const bounds = presetInfo.bounds;
  // The target first: mercy is checked against it.
  const names = optionNames().sort((a, b) => (a === "target" ? -1 : b === "target" ? 1 : 0));
  for (const name of names) {
    const input = form.elements[name];
    if (!input || input.disabled) continue;
    chosen[name] = input.type === "checkbox" ? input.checked : readNumber(name, bounds[name], form, chosen);
  }
  const rules = { preset };
  for (const name of optionNames()) {
    if (name in chosen && chosen[name] !== spec[name]) rules[name] = chosen[name];
  }
  return rules;
}
