// A dictionary's word list as offline practice plays with it: the compact text the server
// sends (solver/compact.py: the words sorted, each as the letters it shares with the word
// before and the letters after) read in one pass into a trie of typed arrays, some 10 bytes
// a letter, that the solver walks (solver.js) and entries are looked up in.

const MAGIC = "BOGGLE-WORDS 1";
// A line's first character: how many letters it shares with the line before (0-9, A-Z).
const SHARED_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

export class WordListError extends Error {}

/** Node 0 is the root; 0 as a child or sibling means none (the root is nobody's child). */
export class WordTrie {
  constructor(capacity) {
    this.letter = new Uint16Array(capacity);
    this.firstChild = new Int32Array(capacity);
    this.nextSibling = new Int32Array(capacity);
    this.terminal = new Uint8Array(capacity);
    this.size = 1;
    this.words = 0;
  }

  /** Drop the room left over after building (the text's length bounds the nodes: about
   * twice what a list needs). */
  shrink() {
    for (const name of ["letter", "firstChild", "nextSibling", "terminal"]) this[name] = this[name].slice(0, this.size);
  }

  /** The node under `node` for the letter with UTF-16 code `code`, or 0. Children are in
   * letter order, so the scan stops at the first larger letter. */
  child(node, code) {
    for (let next = this.firstChild[node]; next; next = this.nextSibling[next]) {
      const letter = this.letter[next];
      if (letter === code) return next;
      if (letter > code) return 0;
    }
    return 0;
  }

  /** The node `text`'s letters lead to from `node`, or 0. */
  follow(node, text) {
    for (let i = 0; i < text.length; i += 1) {
      node = this.child(node, text.charCodeAt(i));
      if (!node) return 0;
    }
    return node;
  }

  has(word) {
    const node = word ? this.follow(0, word) : 0;
    return node !== 0 && this.terminal[node] === 1;
  }
}

/** The header (what list, its rules) and the trie of a compact word list's text; throws
 * WordListError for anything else (a broken or cut-short download). */
export function parseWordList(text) {
  const magicEnd = text.indexOf("\n");
  const headerEnd = magicEnd < 0 ? -1 : text.indexOf("\n", magicEnd + 1);
  if (headerEnd < 0 || text.slice(0, magicEnd) !== MAGIC) throw new WordListError("not a word list");
  let header;
  try {
    header = JSON.parse(text.slice(magicEnd + 1, headerEnd));
  } catch {
    throw new WordListError("a word list with a broken header");
  }
  // Each letter after a line's first character makes at most one node.
  const trie = new WordTrie(text.length - headerEnd + 1);
  const lastChild = new Int32Array(trie.letter.length);
  const path = new Int32Array(512); // path[i]: the node after the word's first i letters
  let previousLength = 0;
  let at = headerEnd + 1;
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const shared = SHARED_DIGITS.indexOf(text[at]);
    const length = shared + end - at - 1;
    if (shared < 0 || shared > previousLength || end - at < 2 || length >= path.length) {
      throw new WordListError(`word ${trie.words + 1} of the list is malformed`);
    }
    let node = path[shared];
    for (let i = at + 1, depth = shared + 1; i < end; i += 1, depth += 1) {
      const code = text.charCodeAt(i);
      let child = lastChild[node];
      // The words are sorted: a letter this node already has is its last child.
      if (!child || trie.letter[child] !== code) {
        child = trie.size;
        trie.size += 1;
        trie.letter[child] = code;
        if (lastChild[node]) trie.nextSibling[lastChild[node]] = child;
        else trie.firstChild[node] = child;
        lastChild[node] = child;
      }
      node = child;
      path[depth] = node;
    }
    trie.terminal[node] = 1;
    trie.words += 1;
    previousLength = length;
    at = end + 1;
  }
  if (Number.isInteger(header.words) && header.words !== trie.words) {
    throw new WordListError(`the list has ${trie.words} of its ${header.words} words: the download was cut short`);
  }
  trie.shrink();
  return { header, trie };
}
