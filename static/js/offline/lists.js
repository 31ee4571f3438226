// Getting a dictionary's word list for offline practice: from the address the page names
// (the service worker answers from what it kept, else the network), else from the last
// address that loaded for that dictionary (a page kept before the list was recompiled).

import { load, save } from "../lib/storage.js";
import { parseWordList } from "./wordlist.js";

const KEY = "boggle.offline.lists"; // dictionary name -> the address of its list that loaded

/** The list of `entry` ({name, url}): {header, trie, url, bytes, ms}; throws the last
 * failure when no address gives one. */
export async function loadList(entry) {
  const loaded = load(KEY, {}) || {};
  const urls = [...new Set([entry.url, loaded[entry.name]].filter(Boolean))];
  let failure = new Error("no word list");
  for (const url of urls) {
    try {
      const started = performance.now();
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      const text = await response.text();
      const list = parseWordList(text);
      save(KEY, { ...loaded, [entry.name]: url });
      return { ...list, url, chars: text.length, ms: performance.now() - started };
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}
