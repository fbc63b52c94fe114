// Varaq's service worker: the app opens at once from a phone's home screen, and says plainly
// when there is no connection instead of failing.
//
// The server serves this file at /sw.js (scope "/") and writes the BUILD line below: the cache's
// name (Varaq's version and the hash of the static files, so a deploy brings a fresh cache and
// the old one is deleted) and the app shell to keep: the offline page and every static file
// under its hashed address.
//
// - Static files: from the cache first (their hashed addresses never change meaning).
// - Pages: from the network; when it fails, the offline page.
// - The API, sockets and anything sent (POST…) are not the worker's business: they go to the
//   network untouched and nothing of them is ever stored, since a table's answers hold a
//   seat's cards, and a stale answer would only mislead the table.

const BUILD = { cache: "varaq-unbuilt", shell: ["/offline.html"] };

const OFFLINE_PAGE = "/offline.html";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(BUILD.cache);
    await cache.addAll(BUILD.shell);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("varaq-") && name !== BUILD.cache) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(staticFile(request));
  }
  // Everything else (the API: a table's state, hints, accounts…) goes to the network untouched.
});

/** A page: the network's answer, or the offline page when there is none. */
async function page(request) {
  try {
    return await fetch(request);
  } catch {
    const offline = await caches.match(OFFLINE_PAGE, { cacheName: BUILD.cache });
    return offline || new Response("You're offline — Varaq needs a connection to deal.",
      { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}

/** A static file: the cache's copy, else the network's (kept for next time). */
async function staticFile(request) {
  const cache = await caches.open(BUILD.cache);
  const kept = await cache.match(request);
  if (kept) return kept;
  const answer = await fetch(request);
  if (answer.ok) await cache.put(request, answer.clone());
  return answer;
}
