// The service worker, served at /sw.js by offline/pages.py with the addresses to keep
// written in. It keeps offline practice and the profile (their pages and every file they
// load: offline/shell.py) and the word lists offline practice plays with, so they open
// with no network. Everything else goes to the network as if it were not here.
//
// Pages and their files: the network first (always the newest), the kept copy when the
// network fails. A page not kept, opened offline, shows offline practice instead. Word
// lists: the kept copy first (a version's list never changes), one version per dictionary.

const SHELL = {{ shell|safe }};
const TAG = {{ tag|safe }};
const FALLBACK = {{ fallback|safe }};
const SHELL_CACHE = `boggle-shell-${TAG}`;
const WORDS_CACHE = "boggle-words";
const WORDS_PATH = "/offline/words/";
const KEPT = new Set(SHELL);

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      await cache.addAll(SHELL);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("boggle-shell-") && name !== SHELL_CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(WORDS_PATH)) {
    event.respondWith(wordList(request, url));
  } else if (request.mode === "navigate") {
    event.respondWith(page(request, url));
  } else if (KEPT.has(url.pathname) || url.pathname === "/jsi18n/") {
    event.respondWith(networkFirst(request));
  }
});

function keep(request, response) {
  const copy = response.clone();
  caches.open(SHELL_CACHE).then((cache) => cache.put(request, copy)).catch(() => {});
}

async function networkFirst(request) {
  try {
    const response = await fetch(request);
    if (response.ok) keep(request, response);
    return response;
  } catch (error) {
    const kept = (await caches.match(request)) || (await caches.match(request, { ignoreSearch: true }));
    if (kept) return kept;
    throw error;
  }
}

/** A page: from the network (kept if it is one to keep), else the kept copy, else offline
 * practice; a server that answers with an error (5xx: down behind its proxy) counts as no
 * network for a kept page. */
async function page(request, url) {
  const kept = KEPT.has(url.pathname);
  try {
    const response = await fetch(request);
    if (response.status < 500 || !kept) {
      if (kept && response.ok) keep(request, response);
      return response;
    }
  } catch {
    // no network: below
  }
  return (await caches.match(request, { ignoreSearch: true })) || (await caches.match(FALLBACK)) || Response.error();
}

async function wordList(request, url) {
  const cache = await caches.open(WORDS_CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) {
    await cache.put(request, response.clone());
    const dictionary = url.pathname.split("/")[3];
    for (const old of await cache.keys()) {
      const path = new URL(old.url).pathname;
      if (path !== url.pathname && path.split("/")[3] === dictionary) await cache.delete(old);
    }
  }
  return response;
}
