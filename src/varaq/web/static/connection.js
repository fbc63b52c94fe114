// Talking to the server: JSON over HTTP for requests that need an answer, and one WebSocket
// per game for everything the server pushes (the computer players' moves).
//
// Every message carries a version, so the socket can drop at any moment: on reconnect the
// client says which version it has and the server sends what it missed (or a full state).

/** A refusal from the server; ``message`` is the server's one-line reason, shown as is. */
export class Refusal extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** One JSON request: the answer's body, or a thrown Refusal with the server's reason. */
export async function request(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new Refusal("The server cannot be reached; retrying shortly.", 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const reason = data && typeof data.error === "string" ? data.error : `HTTP ${response.status}`;
    throw new Refusal(reason, response.status);
  }
  return data;
}

export const api = {
  presets: () => request("GET", "/api/presets"),
  create: (body) => request("POST", "/api/games", body),
  state: (id, since) =>
    request("GET", `/api/games/${encodeURIComponent(id)}${since ? `?since=${since}` : ""}`),
  act: (id, action, version) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/actions`, { action, version }),
  next: (id, version) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/next`, { version }),
  concede: (id) => request("POST", `/api/games/${encodeURIComponent(id)}/concede`, {}),
  hint: (id) => request("GET", `/api/games/${encodeURIComponent(id)}/hint`),
  /** This table's rules in words: ``{label, badges, sections: [{heading, text}]}``. */
  rules: (spec) => request("GET", `/api/rules?spec=${encodeURIComponent(JSON.stringify(spec))}`),
  recordUrl: (id) => `/api/games/${encodeURIComponent(id)}/record`,
};

/** The longest spread a stopping server asks pages to move over (MOVE_SPREAD in
 * service/registry.py, seconds). */
const MOST_MOVE_SPREAD_S = 10;

/**
 * Milliseconds to wait before opening the next socket when a stopping server says "moving"
 * within ``within`` seconds: a random point of that spread (at most MOVE_SPREAD), so its pages
 * do not all knock at the next process at once.
 * @param {unknown} within
 */
export function moveDelay(within) {
  const spread = Math.max(0, Math.min(Number(within) || 0, MOST_MOVE_SPREAD_S));
  return Math.floor(Math.random() * spread * 1000);
}

/**
 * The game's WebSocket, reopened with exponential backoff whenever it drops.
 *
 * ``version()`` is asked at every (re)connect so the hello always names the latest version
 * the page holds; ``greeting()`` gives the messages to send after each hello (the player's
 * settings); ``onMessage`` gets each parsed message; ``onStatus`` gets "open",
 * "reconnecting", "restarting" (the server closed the socket to restart: close code 1012),
 * "closed" or "gone" (the server does not know the game).
 */
export class GameSocket {
  constructor(gameId, { version, greeting = () => [], onMessage, onStatus }) {
    this.gameId = gameId;
    this.version = version;
    this.greeting = greeting;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.delay = 500;
    this.socket = null;
    this.closed = false;
    this.timer = null;
    /** The server said it was restarting (1012): the retries say so until the socket opens. */
    this.restarting = false;
    /** The socket opening while the current one still delivers (the server asked to move). */
    this.next = null;
    /** The timer before that socket is opened. */
    this.moving = null;
  }

  open() {
    if (this.closed) return;
    const socket = this.dial();
    if (!socket) {
      this.retry();
      return;
    }
    this.socket = socket;
  }

  /** A new socket to this game's address, its handlers attached; null if it cannot be made. */
  dial() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${location.host}/ws/games/${encodeURIComponent(this.gameId)}`;
    let socket;
    try {
      socket = new WebSocket(url);
    } catch {
      return null;
    }
    socket.addEventListener("open", () => {
      if (socket === this.next) {
        // Make before break: the next socket is open, so the old one (still delivering until
        // now) is closed and the hello below asks for what came after the version we hold.
        this.next = null;
        const old = this.socket;
        this.socket = socket;
        clearTimeout(this.timer);
        if (old && old !== socket) old.close(1000, "moved");
      }
      if (this.socket !== socket || this.closed) {
        socket.close();
        return;
      }
      this.delay = 500;
      this.restarting = false;
      this.onStatus("open");
      this.hello();
    });
    socket.addEventListener("message", (message) => {
      // A socket this page closed (it went to another table) may still deliver a message.
      if (this.socket !== socket) return;
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      if (data && data.type === "moving") {
        this.moveOver(data.within);
        return;
      }
      this.onMessage(data);
    });
    socket.addEventListener("close", (event) => {
      if (socket === this.next) {
        // The next socket failed: the old one stays, or if it is gone already, retry.
        this.next = null;
        if (!this.socket && !this.closed) this.retry();
        return;
      }
      if (this.socket !== socket) return;
      this.socket = null;
      if (event.code === 4404) {
        // The server does not know this game: retrying cannot help.
        this.closed = true;
        this.onStatus("gone");
        return;
      }
      if (event.code === 1012) {
        // The server is restarting (or handing this table to another process): come back
        // quickly, and say it is a short wait rather than a lost connection.  The pause is
        // spread over 0.3-1.2 s so the pages of a stopping process do not all knock on the
        // next one at the same moment (benchmarks/rolling_restart.py does the same).
        this.delay = 300 + Math.floor(Math.random() * 900);
        this.restarting = true;
      }
      if (this.next) return; // the socket already opening elsewhere takes over when it opens
      this.retry();
    });
    // An "error" is always followed by "close", which schedules the retry.
    socket.addEventListener("error", () => {});
    return socket;
  }

  /**
   * The server is stopping and asks this page to move ("moving"): after a pause spread over
   * ``within`` seconds (so its pages do not all knock at once), open the next socket — the
   * address leads to a process still listening — while this one keeps delivering events.
   */
  moveOver(within) {
    if (this.closed || this.next || this.moving) return;
    this.moving = setTimeout(() => {
      this.moving = null;
      if (this.closed || this.next || !this.socket) return;
      this.next = this.dial();
    }, moveDelay(within));
  }

  retry() {
    if (this.closed) return;
    this.onStatus(this.restarting ? "restarting" : "reconnecting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), this.delay);
    this.delay = Math.min(this.delay * 2, 8000);
  }

  /** Say which version we hold (the server answers with what we missed), then greet. */
  hello() {
    this.send({ type: "hello", version: this.version() });
    for (const message of this.greeting()) this.send(message);
  }

  /** Ask again for everything after our version (used when a gap in versions shows up). */
  resync() {
    this.hello();
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.moving);
    if (this.next) {
      this.next.close();
      this.next = null;
    }
    if (this.socket) {
      const socket = this.socket;
      this.socket = null;
      socket.close();
    }
    this.onStatus("closed");
  }
}

// ---------------------------------------------------------------- any other request

/** Plain requests by path, for modules that keep their own routes (the lobby, the account). */
api.get = (path) => request("GET", path);
/** A POST with a JSON body (``{}`` when there is none: the server takes only JSON). */
api.post = (path, body = {}) => request("POST", path, body);
