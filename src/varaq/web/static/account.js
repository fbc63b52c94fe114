// The account box on the home page: sign in or create an account, and once signed in the
// person's name, their matches online and the tables they sit at, with "Sign out" (and, folded
// away, "Sign out everywhere": the server ends every session of the account, on any device).
//
// The server decides everything about a name or a password; a refusal (a wrong password, a
// name taken, too many tries) is its own one line, shown as is beside the form that sent it.
// The list of tables is there so that someone who closed the tab finds their table again.

import { api, Refusal } from "./connection.js";
import { announce } from "./notices.js";
import { el } from "./pages.js";

const $ = (selector) => document.querySelector(selector);

const SEATS = { N: "North", E: "East", S: "South", W: "West" };
const KINDS = { private: "Private table", quick: "Quick match", solo: "Single-player" };
const STATUSES = { seating: "waiting for players", playing: "in play", over: "finished" };

/** ``ACCOUNT`` from the server, or ``{signed_in: false}``; null until the first answer. */
let current = null;
/** Told after every sign-in (with ``ACCOUNT``) and sign-out (with null). */
let onChange = () => {};
/** Awaited before signing out (the lobby leaves the quick-match queue while it still can). */
let beforeSignOut = async () => {};

export function account() {
  return current;
}

export function signedIn() {
  return Boolean(current && current.signed_in);
}

/** ``GET /api/account`` and show the box for it; a server that cannot be reached shows the
 *  forms (signing in then says what is wrong). */
export async function loadAccount() {
  let doc;
  try {
    doc = await api.get("/api/account");
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    doc = { signed_in: false };
  }
  showAccount(doc);
  return doc;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "es"}`;
}

/** A table in words: its kind ("Private table") and the rest ("waiting for players · you
 *  sit South"). */
export function tableWords(table) {
  const kind = KINDS[table.kind] || String(table.kind);
  const status = STATUSES[table.status] || String(table.status);
  const seat = SEATS[table.seat] ? `you sit ${SEATS[table.seat]}` : "";
  return [kind, [status, seat].filter(Boolean).join(" · ")];
}

function tableItem(table) {
  const item = el("li", table.status === "over" ? "over" : "");
  const [kind, rest] = tableWords(table);
  const link = el("a");
  link.href = `/play/${encodeURIComponent(table.id)}`;
  link.append(el("strong", "", kind), ` · ${rest}`);
  item.append(link);
  return item;
}

function showTables(tables) {
  const list = Array.isArray(tables) ? tables : [];
  $("#my-tables").replaceChildren(...list.map(tableItem));
  $("#my-tables-box").hidden = list.length === 0;
}

/** Show the box for ``doc`` (``ACCOUNT`` or ``{signed_in: false}``). */
export function showAccount(doc) {
  current = doc && typeof doc === "object" ? doc : { signed_in: false };
  const on = signedIn();
  $("#account-forms").hidden = on;
  $("#profile").hidden = !on;
  $("#lobby").hidden = !on;
  document.body.dataset.signedIn = String(on);
  if (!on) {
    showTables([]);
    return;
  }
  $("#profile-name").textContent = current.name;
  /** @type {HTMLAnchorElement} */ ($("#profile-link")).href =
    `/players/${encodeURIComponent(current.name)}`;
  const played = Number(current.played) || 0;
  const won = Number(current.won) || 0;
  $("#profile-record").textContent = played
    ? `${plural(played, "match")} played online, ${won} won.`
    : "No match finished online yet.";
  showTables(current.tables);
}

/** Put the cursor in the sign-in form's Name field (the daily page links to ``/#account``). */
export function focusSignIn() {
  const box = $("#account");
  if (signedIn()) {
    box.focus();
    return;
  }
  box.scrollIntoView({ block: "nearest" });
  $("#sign-in-form").elements.name.focus();
}

function formError(form, text) {
  const box = form.querySelector(".form-error");
  box.textContent = text || "";
  box.hidden = !text;
}

/** Send one of the two forms to ``path``; the server's refusal stays beside that form. */
async function submitAccount(form, path) {
  const button = form.querySelector("button[type=submit]");
  formError(form, "");
  button.disabled = true;
  try {
    const doc = await api.post(path, {
      name: form.elements.name.value,
      password: form.elements.password.value,
    });
    for (const each of document.querySelectorAll(".account-form")) each.reset();
    showAccount(doc);
    announce(`Signed in as ${doc.name}.`);
    $("#profile-name").focus();
    onChange(doc);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    formError(form, error.message);
    // Ready to type again: the password after a wrong one, the name when it was refused.
    if (error.status === 401) form.elements.password.select();
    else if (error.status === 400 || error.status === 409) form.elements.name.select();
  } finally {
    button.disabled = false;
  }
}

async function signOut() {
  const button = $("#sign-out");
  button.disabled = true;
  try {
    await beforeSignOut();
    await api.post("/api/account/signout");
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    // The cookie may already be gone; the box below shows what the server now says.
  } finally {
    button.disabled = false;
  }
  signedOut("Signed out.");
}

/** After either way of signing out: the forms, ready to sign in again. */
function signedOut(words) {
  $("#other-devices").open = false;
  showAccount({ signed_in: false });
  announce(words);
  onChange(null);
  $("#sign-in-form").elements.name.focus();
}

/** End every session of the account.  If the server could not, say why and stay signed in:
 *  the other devices would still be signed in.  (A 401 means this one no longer was.) */
async function signOutEverywhere() {
  const box = $("#other-devices");
  const button = $("#sign-out-everywhere");
  const problem = box.querySelector(".form-error");
  problem.hidden = true;
  button.disabled = true;
  let words = "Signed out everywhere.";
  try {
    await beforeSignOut();
    const doc = await api.post("/api/account/signout-everywhere");
    const ended = Number(doc.ended) || 0;
    words = `Signed out everywhere: ${ended} sign-in${ended === 1 ? "" : "s"} ended.`;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    if (error.status !== 401) {
      problem.textContent = error.message;
      problem.hidden = false;
      return;
    }
    words = "This browser was signed out already: sign in to sign out everywhere.";
  } finally {
    button.disabled = false;
  }
  signedOut(words);
}

/** Wire the forms and "Sign out"; ``changed(account | null)`` is told after each, and
 *  ``leaving()`` is awaited before signing out. */
export function wireAccount({ changed, leaving }) {
  onChange = changed;
  beforeSignOut = leaving;
  const signIn = $("#sign-in-form");
  const signUp = $("#sign-up-form");
  signIn.addEventListener("submit", (event) => {
    event.preventDefault();
    submitAccount(signIn, "/api/account/signin");
  });
  signUp.addEventListener("submit", (event) => {
    event.preventDefault();
    submitAccount(signUp, "/api/account/signup");
  });
  $("#sign-out").addEventListener("click", signOut);
  $("#sign-out-everywhere").addEventListener("click", signOutEverywhere);
}
