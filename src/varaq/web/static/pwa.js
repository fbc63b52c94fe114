// Varaq as an installed app: registers the service worker (served at /sw.js, see sw.js) and
// says plainly when the browser has lost its connection.
//
// Every page loads this module. While the browser is offline a "No connection" banner shows
// over the page; it goes away when the connection returns (the table's socket reconnects by
// itself). On the offline page the return of the connection reloads the address the player
// asked for, and "Try again now" does the same at once.

const BANNER_WORDS = "No connection — the table waits until you're back online.";

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
if (document.body.dataset.page === "offline") {
  // Only when the connection comes back: the page may be here while the browser is online
  // and the server away, and reloading then would only bring it back.
  window.addEventListener("online", () => location.reload());
  const retry = document.getElementById("offline-retry");
  if (retry) retry.addEventListener("click", () => location.reload());
} else {
  window.addEventListener("offline", showConnection);
  window.addEventListener("online", showConnection);
  showConnection();
}
