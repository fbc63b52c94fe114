// The rules part of a form: the presets the server offers, and a custom table built from one.
// The New game dialog and the lobby's "Open a table" dialog each hold one ``RulesPicker``.
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

/** The preset a new table starts from, as on the server (quick match plays it too). */
const DEFAULT_PRESET = "varaq";

/** Whole-number options that may be left blank (no value: the rule is off). */
const BLANK_MEANS_NONE = new Set(["mercy"]);

/** ``GET /api/presets``, asked once per page for every form that shows the rules. */
let presetsAsked = null;

function fetchPresets() {
  if (!presetsAsked) {
    presetsAsked = api.presets().catch((error) => {
      presetsAsked = null; // ask again next time: the server may be back
      throw error;
    });
  }
  return presetsAsked;
}

const minus = (n) => (n < 0 ? `−${-n}` : String(n));
const isSwitch = (info) => info.low === null || info.high === null;

/**
 * The preset list, its summary, the "Custom table" switch and the custom options of one form.
 *
 * ``parts`` names the form's elements: ``form``, ``preset`` (the select), ``summary``,
 * ``toggle`` (the switch), ``custom`` (the box the options are built in) and ``error`` (the
 * form's alert line). ``idPrefix`` keeps the options' ids apart when two forms are on a page.
 */
export class RulesPicker {
  constructor(parts, idPrefix = "option") {
    this.parts = parts;
    this.idPrefix = idPrefix;
    /** ``GET /api/presets`` once this form is built from it. */
    this.info = null;
  }

  /** Fill the preset list and build the custom options (once; later calls return at once). */
  async load() {
    if (this.info) return this.info;
    let info;
    try {
      info = await fetchPresets();
    } catch {
      this.showError("The rules cannot be loaded from the server; try again shortly.");
      return { presets: {}, bounds: {} };
    }
    if (this.info) return this.info; // two clicks, two loads: the first built the form
    this.info = info;
    const select = this.parts.preset;
    // The default table comes first and is chosen; Classic and the rest are one choice away.
    const names = Object.keys(info.presets);
    if (names.includes(DEFAULT_PRESET)) {
      names.splice(names.indexOf(DEFAULT_PRESET), 1);
      names.unshift(DEFAULT_PRESET);
    }
    select.replaceChildren(...names.map((name) => {
      const option = document.createElement("option");
      option.value = name;
      option.textContent = info.presets[name].label || name;
      return option;
    }));
    select.value = names[0] || select.value;
    this.buildCustom(info.bounds || {});
    this.fill();
    return info;
  }

  /** Follow the preset list and the switch (the New game dialog's are wired by app.js). */
  wire() {
    this.parts.preset.addEventListener("change", () => this.fill());
    this.parts.toggle.addEventListener("change", () => {
      this.parts.custom.hidden = !this.parts.toggle.checked;
    });
  }

  showError(text) {
    const box = this.parts.error;
    box.textContent = text;
    box.hidden = false;
  }

  optionField(name, info) {
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
    input.id = `${this.idPrefix}-${name}`;
    const range = el("small", "option-range", BLANK_MEANS_NONE.has(name)
      ? `${minus(info.low)} to below the target, or blank`
      : `${minus(info.low)} to ${minus(info.high)}`);
    range.id = `${input.id}-range`;
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

  buildCustom(bounds) {
    const box = this.parts.custom;
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
        (isSwitch(bounds[name]) ? switches : numbers).append(this.optionField(name, bounds[name]));
      }
      if (switches.childElementCount) group.append(switches);
      if (numbers.childElementCount) group.append(numbers);
      return group;
    }));
    box.addEventListener("input", (event) => {
      const name = event.target.dataset.option;
      if (!name) return;
      event.target.removeAttribute("aria-invalid");
      if (name === "target") this.limitMercy();
      if (Object.values(NEEDS).includes(name)) this.followSwitches();
    });
  }

  /** Mercy must stay below the target: its field's maximum follows the target field. */
  limitMercy() {
    const { elements } = this.parts.form;
    const target = Number(elements.target && elements.target.value);
    if (elements.mercy && Number.isInteger(target)) elements.mercy.max = String(target - 1);
  }

  /** Grey out the values of a rule that is switched off (nil values without nil…). */
  followSwitches() {
    const { elements } = this.parts.form;
    for (const [name, needs] of Object.entries(NEEDS)) {
      if (elements[name] && elements[needs]) elements[name].disabled = !elements[needs].checked;
    }
  }

  presetSpec() {
    const spec = this.info && this.info.presets[this.parts.preset.value];
    return spec && typeof spec === "object" ? spec : {};
  }

  optionNames() {
    return Object.keys((this.info && this.info.bounds) || {});
  }

  /** Show the chosen preset's values in the custom form, so a custom table starts from it. */
  fill() {
    const spec = this.presetSpec();
    const { elements } = this.parts.form;
    for (const name of this.optionNames()) {
      const input = elements[name];
      if (!input) continue;
      input.removeAttribute("aria-invalid");
      if (input.type === "checkbox") input.checked = Boolean(spec[name]);
      else input.value = spec[name] === null || spec[name] === undefined ? "" : spec[name];
    }
    this.limitMercy();
    this.followSwitches();
    this.parts.error.hidden = true;
    const bits = [];
    if (spec.target) bits.push(`to ${spec.target}`);
    if (spec.nil === false) bits.push("no nil");
    if (spec.blind_nil) bits.push(`blind nil when ${spec.blind_nil_trail} behind`);
    if (spec.blind_nil && spec.exchange) bits.push(`exchange ${spec.exchange}`);
    if (spec.nil_bags_score) bits.push("nil tricks score");
    this.parts.summary.textContent = bits.join(", ");
  }

  /** The number in a field, or a refusal in the form's words. */
  readNumber(name, info, rules) {
    const input = this.parts.form.elements[name];
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

  /** The ``rules`` of a new table: a preset name, or the preset and what differs.
   *  A value out of its range is refused here (a ``Refusal``), in the words of the form. */
  rules() {
    const preset = this.parts.preset.value;
    if (!this.parts.toggle.checked || !this.info) return preset;
    const { elements } = this.parts.form;
    const spec = this.presetSpec();
    const chosen = { target: spec.target };
    const { bounds } = this.info;
    // The target first: mercy is checked against it.
    const names = this.optionNames().sort((a, b) => (a === "target" ? -1 : b === "target" ? 1 : 0));
    for (const name of names) {
      const input = elements[name];
      if (!input || input.disabled) continue;
      chosen[name] = input.type === "checkbox" ? input.checked
        : this.readNumber(name, bounds[name], chosen);
    }
    const rules = { preset };
    for (const name of this.optionNames()) {
      if (name in chosen && chosen[name] !== spec[name]) rules[name] = chosen[name];
    }
    return rules;
  }
}

/**
 * The markup of a rules fieldset for a form built in script (the New game dialog's is in
 * index.html): a legend, the preset list, its summary, the switch and the custom box.
 * Returns the fieldset and the parts a ``RulesPicker`` needs (all but ``form`` and ``error``).
 */
export function rulesFieldset(idPrefix) {
  const fieldset = el("fieldset", "rules-fieldset");
  fieldset.append(el("legend", "", "Rules"));
  const preset = document.createElement("select");
  preset.name = "preset";
  preset.id = `${idPrefix}-preset`;
  const presetLabel = el("label", "field", "Preset");
  presetLabel.htmlFor = preset.id;
  presetLabel.append(preset);
  const summary = el("p", "preset-summary");
  const toggle = document.createElement("input");
  toggle.type = "checkbox";
  const switchLabel = el("label", "switch");
  switchLabel.append(toggle, " Custom table");
  const custom = el("div", "custom-rules");
  custom.hidden = true;
  const more = el("p", "rules-link");
  const link = el("a", "", "What the options mean");
  link.href = "/rules#variations";
  link.target = "_blank";
  link.rel = "noopener";
  more.append(link);
  fieldset.append(presetLabel, summary, switchLabel, custom, more);
  return { fieldset, preset, summary, toggle, custom };
}

// ---------------------------------------------------------------- the New game dialog

let newGame = null;

function newGamePicker() {
  if (!newGame) {
    newGame = new RulesPicker({
      form: $("#new-game-form"), preset: $("#preset-select"), summary: $("#preset-summary"),
      toggle: $("#custom-toggle"), custom: $("#custom-rules"), error: $("#new-game-error"),
    });
  }
  return newGame;
}

/** Fill the New game dialog's preset list and custom options from ``GET /api/presets``. */
export const loadPresets = () => newGamePicker().load();

/** Show the chosen preset's values in the New game dialog's custom options. */
export const fillCustom = () => newGamePicker().fill();

/** The ``rules`` of ``POST /api/games`` from the New game dialog. */
export const rulesFromForm = () => newGamePicker().rules();
