// Every page asks for the service worker (/sw.js, offline/pages.py), which keeps offline
// practice and the profile for when there is no network. Browsers offer service workers
// on https:// and on this machine's own address only: on a phone reaching the embedded
// server by its Wi-Fi address they are missing, and the site works as before.

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {
    // No service worker (private browsing, storage refused): nothing is kept offline.
  });
}
