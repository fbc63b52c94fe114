// Varaq as an installed app: registers the service worker (served at /sw.js, see sw.js) and
// says plainly when the browser has lost its connection.
//
// Every page loads this module. While the browser is offline a "No connection" banner shows
// over the page; it goes away when the connection returns (the table's socket reconnects by
// itself). The offline page reloads the address the player asked for as soon as the server
// answers again, and "Try again now" reloads it at once.

const BANNER_WORDS = "No connection — waiting for the network.";
/** How often the offline page asks whether the server can be reached again. */
const RETRY_MS = 4000;

function register() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch((error) => {
    // Without a worker the app still plays online; it only cannot open offline.
    console.warn("Varaq could not install its service worker:", error);
  });
}

/** The banner, made on first need so a page that never goes offline has no extra node. */
function banner() {
  let node = document.getElementById("offline-banner");
  if (!node) {
    node = document.createElement("p");
    node.id = "offline-banner";
    node.className = "offline-banner";
    node.setAttribute("role", "status");
    node.textContent = BANNER_WORDS;
    node.hidden = true;
    document.body.append(node);
  }
  return node;
}

function showConnection() {
  const offline = navigator.onLine === false;
  if (offline || document.getElementById("offline-banner")) banner().hidden = !offline;
}

register();
/** On the offline page: load the address asked for once the server answers again. The page
 * may be here while the browser is online and the server away, so it asks the server (the
 * health check, which no cache answers) rather than trusting ``navigator.onLine``. */
async function reconnect() {
  try {
    const answer = await fetch("/healthz", { cache: "no-store" });
    if (answer.ok) location.reload();
  } catch {
    // Still no connection: the next try comes soon.
  }
}

if (document.body.dataset.page === "offline") {
  window.addEventListener("online", reconnect);
  setInterval(reconnect, RETRY_MS);
  const retry = document.getElementById("offline-retry");
  if (retry) retry.addEventListener("click", () => location.reload());
} else {
  window.addEventListener("offline", showConnection);
  window.addEventListener("online", showConnection);
  showConnection();
}
