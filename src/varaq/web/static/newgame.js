// The new game form: the presets the server offers, and a custom table built from one.
//
// The form only collects choices; the server checks them and its refusal is shown as is.

import { api } from "./connection.js";

const $ = (selector) => document.querySelector(selector);

let presetInfo = null;

/** Fill the preset list from ``GET /api/presets`` (once). */
export async function loadPresets() {
  if (presetInfo) return presetInfo;
  try {
    presetInfo = await api.presets();
  } catch {
    presetInfo = { presets: { classic: {}, short: {}, varaq: {}, daily: {} }, options: {} };
  }
  const select = $("#preset-select");
  select.replaceChildren(...Object.keys(presetInfo.presets).map((name) => {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = name[0].toUpperCase() + name.slice(1);
    return option;
  }));
  select.value = presetInfo.presets.classic ? "classic" : select.value;
  fillCustom();
  return presetInfo;
}

function presetSpec() {
  const spec = presetInfo && presetInfo.presets[$("#preset-select").value];
  return spec && typeof spec === "object" ? spec : {};
}

const CUSTOM_NUMBERS = ["target", "bag_limit", "bag_penalty", "mercy", "min_team_bid", "boston_bonus"];
const CUSTOM_SWITCHES = ["blind_nil", "two_clubs_leads", "jokers"];

/** Show the chosen preset's values in the custom form, so a custom table starts from it. */
export function fillCustom() {
  const spec = presetSpec();
  const form = $("#new-game-form");
  form.elements.no_nil.checked = spec.nil === false;
  for (const name of CUSTOM_SWITCHES) form.elements[name].checked = Boolean(spec[name]);
  for (const name of CUSTOM_NUMBERS) {
    form.elements[name].value = spec[name] === null || spec[name] === undefined ? "" : spec[name];
  }
  const bits = [];
  if (spec.target) bits.push(`to ${spec.target}`);
  if (spec.blind_nil) bits.push("blind nil");
  if (spec.exchange) bits.push(`exchange ${spec.exchange}`);
  if (spec.nil === false) bits.push("no nil");
  if (spec.nil_bags_score) bits.push("nil tricks score");
  $("#preset-summary").textContent = spec.label ? `${spec.label}: ${bits.join(", ")}` : bits.join(", ");
}

/** The ``rules`` of ``POST /api/games``: a preset name, or the preset and what differs. */
export function rulesFromForm() {
  const form = $("#new-game-form");
  const preset = $("#preset-select").value;
  if (!$("#custom-toggle").checked) return preset;
  const spec = presetSpec();
  const rules = { preset };
  const set = (key, value) => {
    if (spec[key] === undefined || spec[key] !== value) rules[key] = value;
  };
  set("nil", !form.elements.no_nil.checked);
  for (const name of CUSTOM_SWITCHES) set(name, form.elements[name].checked);
  for (const name of CUSTOM_NUMBERS) {
    const raw = form.elements[name].value.trim();
    if (raw === "" && name !== "mercy") continue;
    set(name, raw === "" ? null : Number(raw));
  }
  return rules;
}
