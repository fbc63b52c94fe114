// @ts-check
// Friends and call-backs: the Friends panel (home page, one's own profile), invitations to a
// table (a notice on every page, live over the page's own socket), the waiting room's Invite
// box, and the browser notifications a person may opt in to.
//
// The server decides everything here (who is online, where, whether an invitation stands, who
// may sit): this module shows ``FRIENDS`` (GET /api/friends), sends what the person presses,
// and shows the server's own one-line reason when it says no.
//
// Notifications are asked for only when the person presses "Notify me" (the browser's own
// question follows the press), remembered in localStorage, and used only while the tab is
// hidden. While it is in view, the page says the same with its title and the turn sound.

import { Refusal, moveDelay, request } from "./connection.js";
import { el } from "./dom.js";
import * as sound from "./sound.js";
import { isPeopleTable, isWatching, legalNow } from "./store.js";

/** @typedef {import("./store.js").State} State */
/**
 * A standing invitation, as the server sends it.
 * @typedef {{id: number, from: string, table: string, created: number, expires: number, text: string}} Invite
 */
/**
 * One person followed, with where they are.
 * @typedef {{name: string, profile: string, status: string, status_text: string,
 *   link: {href: string, text: string} | null}} Friend
 */
/**
 * ``FRIENDS`` of docs/protocol.md.
 * @typedef {{following: Friend[], blocked: string[], invites: Invite[],
 *   invite_table: {id: string, status: string} | null}} Panel
 */

/** localStorage key of the opt-in. */
const OPT_IN = "varaq-notify";
/** Seconds between two looks at the friends list while the panel is in view. */
const REFRESH_SECONDS = 20;
/** Longest wait between two attempts to reopen the page's socket. */
const MAX_BACKOFF_MS = 30000;

/** What this page knows: the invitations standing, the last panel, the page's socket. */
const known = {
  /** @type {Map<number, Invite>} */
  invites: new Map(),
  /** @type {Panel | null} */
  panel: null,
  signedIn: false,
  started: false,
  /** @type {WebSocket | null} */
  socket: null,
  backoff: 1000,
  /** @type {ReturnType<typeof setInterval> | null} */
  refresher: null,
  /** Call-backs waiting while the tab is hidden (the title's "(n)"). */
  unseen: 0,
  /** The version whose turn was already called out, and the table it belongs to. */
  turnCalled: "",
  /** The waiting room last drawn: table id, status, people seated. */
  waitingSeen: { id: "", status: "", people: 0 },
  /** The waiting room's table (the Invite box sends to it). */
  inviteTable: "",
  /** Whether the person opened the waiting room's Invite box. */
  inviteOpen: false,
  /** The table page's last state, to draw the Invite box again once the socket says hello. */
  /** @type {State | null} */
  lastState: null,
};

// ------------------------------------------------------------------ notifications

/** Whether the browser can show notifications at all. */
function canNotify() {
  return typeof window !== "undefined" && "Notification" in window;
}

/** Whether the person opted in and the browser allows it. */
export function notifying() {
  if (!canNotify() || Notification.permission !== "granted") return false;
  try {
    return localStorage.getItem(OPT_IN) === "on";
  } catch {
    return false;
  }
}

/** @param {boolean} on */
function remember(on) {
  try {
    if (on) localStorage.setItem(OPT_IN, "on");
    else localStorage.removeItem(OPT_IN);
  } catch {
    // No storage: the choice lasts as long as the page.
  }
}

/** What the notify buttons say now. */
function notifyWords() {
  if (!canNotify()) return { text: "Notifications unavailable", pressed: false, off: true };
  if (Notification.permission === "denied") {
    return { text: "Notifications blocked by the browser", pressed: false, off: true };
  }
  return notifying() ? { text: "Notifications on", pressed: true, off: false }
    : { text: "Notify me when it's my turn", pressed: false, off: false };
}

/** Draw every notify button of the page. */
function drawNotifyButtons() {
  const words = notifyWords();
  for (const node of document.querySelectorAll(".notify-button")) {
    const b = /** @type {HTMLButtonElement} */ (node);
    b.textContent = words.text;
    b.disabled = words.off;
    b.setAttribute("aria-pressed", String(words.pressed));
    b.title = words.pressed ? "Press to stop notifications from this page"
      : "A notification when it is your turn, your table fills or a friend invites you, "
        + "while this tab is hidden";
  }
}

/** The notify button was pressed: ask the browser now (never before a press), or turn off. */
async function toggleNotify() {
  if (!canNotify()) return;
  if (notifying()) {
    remember(false);
  } else {
    const answer = Notification.permission === "granted" ? "granted"
      : await Notification.requestPermission();
    remember(answer === "granted");
  }
  drawNotifyButtons();
}

/** Whether the tab is hidden (another tab in front, the window minimised). */
function hidden() {
  return document.visibilityState === "hidden" || document.hidden;
}

/** The title's "(n) " prefix while call-backs wait unseen. */
function prefix() {
  return known.unseen ? `(${known.unseen}) ` : "";
}

/** Put the "(n) " badge back whenever the page rewrites its title. */
function keepBadge() {
  const title = document.querySelector("title");
  if (!title) return;
  new MutationObserver(() => {
    const want = prefix();
    const bare = document.title.replace(/^\(\d+\) /, "");
    if (document.title !== want + bare) document.title = want + bare;
  }).observe(title, { childList: true, characterData: true, subtree: true });
  document.addEventListener("visibilitychange", () => {
    if (!hidden() && known.unseen) {
      known.unseen = 0;
      document.title = document.title.replace(/^\(\d+\) /, "");
    }
  });
}

/**
 * Call the person back: a notification while the tab is hidden (when they opted in), else
 * the title's badge while hidden and, always, the turn sound (if sound is on).
 * @param {string} title
 * @param {string} body
 * @param {string} tag  one notification per tag: a newer one replaces it
 * @param {string} [href]  where a click on the notification goes
 * @param {boolean} [ring]  play the turn sound (the table page plays its own at a turn)
 */
export function callBack(title, body, tag, href, ring = true) {
  if (ring) sound.play("turn");
  if (!hidden()) return;
  known.unseen += 1;
  document.title = prefix() + document.title.replace(/^\(\d+\) /, "");
  if (!notifying()) return;
  try {
    const note = new Notification(title, { body, tag, icon: "/static/icon.svg" });
    note.onclick = () => {
      window.focus();
      if (href && location.pathname !== href) location.assign(href);
      note.close();
    };
  } catch {
    // A browser that allows notifications only from a service worker: the badge says it.
  }
}

/**
 * The table page was drawn: call the person back when it became their turn, or when the
 * table they wait at filled or started.
 * @param {State} s
 */
export function callOnTurn(s) {
  if (!s.shown || isWatching(s)) return;
  const key = `${s.id}:${s.version}`;
  if (legalNow(s).size > 0 && (s.shown.phase === "bid" || s.shown.phase === "play")
      && known.turnCalled !== key) {
    known.turnCalled = key;
    if (hidden()) callBack("Your turn — Varaq", "The table is waiting for you.", "turn",
      location.pathname, false);
  }
  if (!isPeopleTable(s) || !s.you) return;
  const seats = (s.table && s.table.seats) || [];
  const people = seats.filter((/** @type {any} */ d) => d.kind === "person").length;
  const seen = known.waitingSeen;
  if (seen.id === s.id && seen.status === "seating") {
    if (s.status === "playing") {
      callBack("The match begins — Varaq", "Your table has started.", "table", location.pathname);
    } else if (people === 4 && seen.people < 4) {
      callBack("Your table is full — Varaq", "Four people sit at your table.", "table",
        location.pathname);
    }
  }
  known.waitingSeen = { id: String(s.id || ""), status: String(s.status || ""), people };
}

// ------------------------------------------------------------------ the page's socket

/** Sockets closed by this page after their next one opened (a move): no retry for them. */
const retired = new WeakSet();

/**
 * Open the page's own socket: presence while it is open, invitations as made.  With
 * ``previous`` this is a move: a stopping server asked the page to go elsewhere, so the old
 * socket stays open (the person stays online) until this one has said hello.
 * @param {WebSocket} [previous]
 */
function connect(previous) {
  if (typeof WebSocket === "undefined") return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/me`);
  known.socket = socket;
  let signedOut = false;
  let greeted = false;
  let moving = false;
  socket.addEventListener("message", (e) => {
    let message;
    try {
      message = JSON.parse(String(e.data));
    } catch {
      return;
    }
    if (message.type === "signed-out") {
      signedOut = true;
      known.signedIn = false;
      drawPanel();
    } else if (message.type === "moving") {
      if (moving) return;
      moving = true;
      setTimeout(() => {
        if (known.socket === socket) connect(socket);
      }, moveDelay(message.within));
    } else if (message.type === "hello") {
      greeted = true;
      if (previous) {
        retired.add(previous);
        previous.close(1000);
        previous = undefined;
      }
      known.backoff = 1000;
      known.signedIn = true;
      known.invites = new Map((message.invites || []).map((/** @type {Invite} */ i) => [i.id, i]));
      drawInvites();
      if (known.lastState) drawInviteBox(known.lastState);
      refresh();
    } else if (message.type === "invite") {
      const invite = /** @type {Invite} */ (message.invite);
      const fresh = !known.invites.has(invite.id);
      known.invites.set(invite.id, invite);
      drawInvites();
      if (fresh) {
        say(invite.text);
        callBack("An invitation — Varaq", `${invite.text}.`, `invite-${invite.id}`, "/");
      }
    }
  });
  socket.addEventListener("close", (e) => {
    if (retired.has(socket)) return; // moved: its successor carries on
    if (previous && !greeted && previous.readyState === WebSocket.OPEN) {
      known.socket = previous; // the move failed: the old socket still serves until it closes
      return;
    }
    if (known.socket === socket) known.socket = null;
    else if (known.socket) return; // a newer socket carries on
    // Signed out as the server saw it: try again only if the page signed in meanwhile.
    const pageSaysIn = document.body.dataset.signedIn === "true";
    if (e.code === 4429 || (signedOut && !pageSaysIn)
        || document.body.dataset.signedIn === "false") {
      known.signedIn = false;
      known.invites.clear();
      drawInvites();
      drawPanel();
      return;
    }
    setTimeout(connect, known.backoff);
    known.backoff = Math.min(known.backoff * 2, MAX_BACKOFF_MS);
  });
}

/** Start the friends part of this page: the socket, the notify buttons, the title badge. */
export function startFriends() {
  if (known.started || typeof document === "undefined") return;
  known.started = true;
  keepBadge();
  document.addEventListener("click", (e) => {
    const target = /** @type {Element | null} */ (e.target);
    if (target && target.closest(".notify-button")) toggleNotify();
  });
  drawNotifyButtons();
  connect();
  // The account box marks the page when someone signs in or out (account.js): a page that
  // was signed out opens its socket then, and one that signs out closes it.
  new MutationObserver(() => {
    const on = document.body.dataset.signedIn === "true";
    if (on && !known.socket) {
      known.backoff = 1000;
      connect();
    } else if (!on && known.socket) {
      known.socket.close();
    }
  }).observe(document.body, { attributes: true, attributeFilter: ["data-signed-in"] });
  document.addEventListener("visibilitychange", () => {
    if (!hidden()) refresh();
  });
}

// ------------------------------------------------------------------ invitations

/** Say ``text`` to screen readers, where the page has a live region. @param {string} text */
function say(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.append(el("p", "", text));
  while (region.childElementCount > 12) region.firstElementChild?.remove();
}

/** The box of invitation notices (made on pages whose markup has none). */
function invitesBox() {
  let box = document.getElementById("invites");
  if (!box) {
    box = el("aside", "invites");
    box.id = "invites";
    box.setAttribute("aria-label", "Invitations");
    document.body.append(box);
  }
  return box;
}

/** Draw the standing invitations (lapsed ones drop off). */
function drawInvites() {
  const box = invitesBox();
  const now = Date.now();
  for (const [id, invite] of known.invites) if (invite.expires <= now) known.invites.delete(id);
  // Cards already shown stay as they are (no second entrance); the rest are made.
  /** @type {Map<string, Element>} */
  /** @type {Map<string, HTMLElement>} */
  const shown = new Map();
  for (const card of box.querySelectorAll(".invite")) {
    const node = /** @type {HTMLElement} */ (card);
    shown.set(String(node.dataset.invite), node);
  }
  const cards = [];
  for (const invite of known.invites.values()) {
    const minutes = Math.max(1, Math.round((invite.expires - now) / 60000));
    const old = shown.get(String(invite.id));
    if (old) {
      const when = old.querySelector(".invite-when");
      if (when) when.textContent = ` · for ${minutes} more min`;
      cards.push(old);
      continue;
    }
    const card = el("div", "invite");
    card.dataset.invite = String(invite.id);
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", invite.text);
    const words = el("p", "invite-text", invite.text);
    const when = el("span", "invite-when", ` · for ${minutes} more min`);
    words.append(when);
    const join = el("button", "primary small", "Join");
    join.type = "button";
    join.addEventListener("click", () => answer(invite, "join", card));
    const dismiss = el("button", "secondary small", "Dismiss");
    dismiss.type = "button";
    dismiss.addEventListener("click", () => answer(invite, "dismiss", card));
    const error = el("p", "invite-error");
    error.setAttribute("role", "alert");
    error.hidden = true;
    const row = el("div", "invite-actions");
    row.append(join, dismiss);
    card.append(words, row, error);
    cards.push(card);
  }
  box.replaceChildren(...cards);
  box.hidden = known.invites.size === 0;
}

/**
 * Join the table an invitation offers (then go there), or dismiss it.
 * @param {Invite} invite
 * @param {"join" | "dismiss"} word
 * @param {HTMLElement} card
 */
async function answer(invite, word, card) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  try {
    const doc = await request("POST", `/api/invites/${invite.id}/${word}`, {});
    known.invites.delete(invite.id);
    drawInvites();
    if (word === "join") location.assign(`/play/${encodeURIComponent(doc.id)}`);
  } catch (e) {
    const error = /** @type {HTMLElement} */ (card.querySelector(".invite-error"));
    error.textContent = e instanceof Refusal ? e.message : "Something went wrong; try again.";
    error.hidden = false;
    for (const b of card.querySelectorAll("button")) b.disabled = false;
    if (e instanceof Refusal && (e.status === 404 || e.status === 409)) {
      // It lapsed, was answered elsewhere, or its table moved on: it goes after a moment.
      setTimeout(() => {
        known.invites.delete(invite.id);
        drawInvites();
      }, 4000);
    }
  }
}

// ------------------------------------------------------------------ the Friends panel

/** Ask for the friends list again (when a panel or the Invite box is there to show it). */
async function refresh() {
  if (!known.signedIn) return;
  const wanted = document.getElementById("friends") || document.getElementById("invite-box");
  if (!wanted) return;
  try {
    known.panel = /** @type {Panel} */ (await request("GET", "/api/friends"));
  } catch {
    return;  // Offline for a moment: the next look will do.
  }
  known.invites = new Map(known.panel.invites.map((i) => [i.id, i]));
  drawInvites();
  drawPanel();
  drawInviteList();
}

/** The panel shows while it is in view: look again every little while. */
export function showFriends() {
  if (!known.refresher) {
    known.refresher = setInterval(() => {
      if (!hidden()) refresh();
    }, REFRESH_SECONDS * 1000);
  }
  refresh();
}

/**
 * A small button.
 * @param {string} text
 * @param {string} className
 * @param {() => void} onClick
 */
function small(text, className, onClick) {
  const b = el("button", `${className} small`, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

/** Show a one-line result or refusal under the panel's form. @param {string} text @param {boolean} bad */
function panelNote(text, bad) {
  const note = document.getElementById("friends-note");
  if (!note) return;
  note.textContent = text;
  note.classList.toggle("bad", bad);
  note.hidden = !text;
}

/**
 * Follow, unfollow, block or unblock ``name``; the panel redrawn from the server's answer.
 * @param {"follow" | "unfollow" | "block" | "unblock"} verb
 * @param {string} name
 */
async function change(verb, name) {
  try {
    known.panel = /** @type {Panel} */ (await request("POST", `/api/friends/${verb}`, { name }));
    const done = { follow: "You follow", unfollow: "You no longer follow", block: "You blocked",
      unblock: "You unblocked" }[verb];
    panelNote(`${done} ${name.trim()}.`, false);
    drawPanel();
    drawInviteList();
    return true;
  } catch (e) {
    panelNote(e instanceof Refusal ? e.message : "Something went wrong; try again.", true);
    return false;
  }
}

/**
 * Invite ``name`` to ``table``; a note says how it went.
 * @param {string} name
 * @param {string} table
 * @param {(text: string, bad: boolean) => void} note
 */
async function sendInvite(name, table, note) {
  try {
    const doc = await request("POST", "/api/invites", { name, table });
    note(`Invited ${doc.invited}: the invitation stands for 30 minutes.`, false);
  } catch (e) {
    note(e instanceof Refusal ? e.message : "Something went wrong; try again.", true);
  }
}

/** Build the panel's fixed parts once: the heading, the form, the lists. @param {HTMLElement} root */
function buildPanel(root) {
  if (root.dataset.built) return;
  root.dataset.built = "1";
  // A section of its own on the profile page; a part of the online box on the home page.
  const heading = el(root.closest(".player-page") ? "h2" : "h3", "", "Friends");
  heading.id = "friends-title";
  root.setAttribute("aria-labelledby", "friends-title");
  const form = el("form", "friends-form");
  form.noValidate = true;
  // One row: the field says what it is for (its label is for screen readers and tests).
  const field = el("input");
  field.name = "name";
  field.maxLength = 24;
  field.autocomplete = "off";
  field.spellcheck = false;
  field.placeholder = "Follow a player by name";
  field.setAttribute("aria-label", "Player's name");
  field.setAttribute("autocapitalize", "none");
  const follow = el("button", "secondary small", "Follow");
  follow.type = "submit";
  const blockButton = small("Block", "ghost", async () => {
    if (!field.value.trim()) {
      panelNote("Type the name of the player to block.", true);
      return;
    }
    if (await change("block", field.value)) field.value = "";
  });
  form.append(field, follow, blockButton);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!field.value.trim()) {
      panelNote("Type the name of the player to follow.", true);
      return;
    }
    if (await change("follow", field.value)) field.value = "";
  });
  const note = el("p", "friends-note");
  note.id = "friends-note";
  note.setAttribute("role", "status");
  note.hidden = true;
  const list = el("ul", "friends-list");
  list.id = "friends-list";
  list.setAttribute("aria-labelledby", "friends-title");
  const empty = el("p", "friends-empty",
    "Follow people by name to see when they are online and at a table.");
  empty.id = "friends-empty";
  const blocked = el("details", "friends-blocked");
  blocked.id = "friends-blocked";
  blocked.append(el("summary", "", "Blocked players"), el("ul", "blocked-list"));
  const notify = el("button", "ghost small notify-button");
  notify.type = "button";
  // The form opens on demand: the home page's box has no line to spare on a laptop.
  form.hidden = true;
  form.id = "friends-form";
  const open = el("button", "secondary small friends-open", "Follow or block");
  open.type = "button";
  open.setAttribute("aria-expanded", "false");
  open.setAttribute("aria-controls", "friends-form");
  open.addEventListener("click", () => {
    form.hidden = !form.hidden;
    open.setAttribute("aria-expanded", String(!form.hidden));
    if (!form.hidden) field.focus();
  });
  const head = el("div", "friends-head");
  head.append(heading, open, notify);
  root.append(head, form, note, list, empty, blocked);
  drawNotifyButtons();
}

/** Draw the Friends panel from the last ``FRIENDS`` (hidden for a signed-out page). */
function drawPanel() {
  const root = document.getElementById("friends");
  if (!root) return;
  root.hidden = !known.signedIn;
  if (!known.signedIn || !known.panel) return;
  buildPanel(root);
  const panel = known.panel;
  const list = /** @type {HTMLElement} */ (root.querySelector("#friends-list"));
  list.replaceChildren();
  for (const friend of panel.following) {
    const item = el("li", "friend");
    item.dataset.status = friend.status;
    const who = el("a", "friend-name", friend.name);
    who.href = friend.profile;
    const where = el("span", "friend-status", friend.status_text);
    const actions = el("span", "friend-actions");
    if (friend.link) {
      const go = el("a", "button secondary small", friend.link.text);
      go.href = friend.link.href;
      go.setAttribute("aria-label", `${friend.link.text}: ${friend.name}'s table`);
      actions.append(go);
    }
    if (panel.invite_table && friend.status !== "offline") {
      const table = panel.invite_table.id;
      const invite = small("Invite", "primary", () => sendInvite(friend.name, table, panelNote));
      invite.setAttribute("aria-label", `Invite ${friend.name} to your table`);
      actions.append(invite);
    }
    const drop = small("Unfollow", "ghost", () => change("unfollow", friend.name));
    drop.setAttribute("aria-label", `Unfollow ${friend.name}`);
    actions.append(drop);
    item.append(who, where, actions);
    list.append(item);
  }
  /** @type {HTMLElement} */ (root.querySelector("#friends-empty")).hidden =
    panel.following.length > 0;
  const blocked = /** @type {HTMLElement} */ (root.querySelector("#friends-blocked"));
  blocked.hidden = panel.blocked.length === 0;
  const blockedList = /** @type {HTMLElement} */ (blocked.querySelector(".blocked-list"));
  blockedList.replaceChildren(...panel.blocked.map((name) => {
    const item = el("li", "", name);
    const lift = small("Unblock", "ghost", () => change("unblock", name));
    lift.setAttribute("aria-label", `Unblock ${name}`);
    item.append(" ", lift);
    return item;
  }));
  /** @type {HTMLElement} */ (blocked.querySelector("summary")).textContent =
    `Blocked players (${panel.blocked.length})`;
}

// ------------------------------------------------------------------ the waiting room

/** The waiting room's note under its Invite form. @param {string} text @param {boolean} bad */
function inviteNote(text, bad) {
  const note = document.getElementById("invite-note");
  if (!note) return;
  note.textContent = text;
  note.classList.toggle("bad", bad);
}

/** The names the Invite field offers: the people followed, online first. */
function drawInviteList() {
  const options = document.getElementById("invite-names");
  if (!options || !known.panel) return;
  options.replaceChildren(...known.panel.following.map((f) => {
    const option = el("option");
    option.value = f.name;
    option.label = `${f.name} · ${f.status_text}`;
    return option;
  }));
}

/** Wire the waiting room's Invite button and form (once). */
function wireInviteBox() {
  const form = /** @type {HTMLFormElement | null} */ (document.getElementById("invite-form"));
  const opener = document.getElementById("invite-open");
  if (!form || !opener || form.dataset.wired) return;
  form.dataset.wired = "1";
  opener.addEventListener("click", () => {
    known.inviteOpen = !known.inviteOpen;
    if (known.lastState) drawInviteBox(known.lastState);
    const field = /** @type {HTMLInputElement} */ (form.elements.namedItem("name"));
    if (known.inviteOpen) field.focus();
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const field = /** @type {HTMLInputElement} */ (form.elements.namedItem("name"));
    const name = field.value.trim();
    if (!name) {
      inviteNote("Type the name of the player to invite.", true);
      return;
    }
    sendInvite(name, known.inviteTable, inviteNote).then(() => { field.value = ""; });
  });
}

/**
 * The waiting room's Invite box: shown to a person seated at a private table that still has
 * an empty seat (the server checks again when they invite).
 * @param {State} s
 */
export function drawInviteBox(s) {
  const box = document.getElementById("invite-box");
  const opener = document.getElementById("invite-open");
  if (!box || !opener) return;
  known.lastState = s;
  const seats = (s.table && s.table.seats) || [];
  const open = seats.some((/** @type {any} */ d) => d.kind === "open");
  const show = known.signedIn && isPeopleTable(s) && s.kind === "private"
    && s.status === "seating" && Boolean(s.you) && open;
  opener.hidden = !show;
  if (known.inviteTable !== s.id) {
    // Another table: its box starts closed and empty.
    known.inviteTable = String(s.id || "");
    known.inviteOpen = false;
    inviteNote("", false);
    if (show) refresh();
  }
  box.hidden = !show || !known.inviteOpen;
  opener.setAttribute("aria-expanded", String(show && known.inviteOpen));
  if (!show) return;
  wireInviteBox();
  drawNotifyButtons();
}
