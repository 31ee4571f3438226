// The referee of offline practice, in the browser: every word on a board (the walk of
// solver/solve.py: the board and the word list's trie at once, the same words the server
// finds), and the verdict on one entry (solver/judge.py's checks, in its order). The rules
// it plays by (points, shortest word, folding) come from the server: solver/rulebook.py.

const BLOCKED = "#";

const tables = new Map(); // "rows x cols" -> its neighbourTable, worked out once

/** For each cell, the cells touching it, in the server's order (solver/board.py). */
export function neighbourTable(rows, cols) {
  const key = `${rows}x${cols}`;
  if (!tables.has(key)) tables.set(key, neighbourCells(rows, cols));
  return tables.get(key);
}

function neighbourCells(rows, cols) {
  const table = [];
  for (let r = 0; r < rows; r += 1) {
    for (let c = 0; c < cols; c += 1) {
      const cells = [];
      for (let nr = Math.max(r - 1, 0); nr < Math.min(r + 2, rows); nr += 1) {
        for (let nc = Math.max(c - 1, 0); nc < Math.min(c + 2, cols); nc += 1) {
          if (nr !== r || nc !== c) cells.push(nr * cols + nc);
        }
      }
      table.push(cells);
    }
  }
  return table;
}

/** Every word of `trie` that `board` ({faces, rows, cols}) spells with at least
 * `minLength` letters, each with one path and its points (`points[letters]`), sorted as
 * the server sorts a solution: most points first, then alphabetically. */
export function solveBoard(board, trie, minLength, points) {
  const { faces } = board;
  const neighbours = neighbourTable(board.rows, board.cols);
  const found = new Map();
  const path = [];
  const used = new Uint8Array(faces.length);

  function walk(cell, node, word) {
    path.push(cell);
    used[cell] = 1;
    if (trie.terminal[node] && !found.has(word)) found.set(word, path.slice());
    for (const next of neighbours[cell]) {
      if (used[next] || faces[next] === BLOCKED) continue;
      const child = trie.follow(node, faces[next]);
      if (child) walk(next, child, word + faces[next]);
    }
    used[cell] = 0;
    path.pop();
  }

  faces.forEach((face, cell) => {
    if (face === BLOCKED) return;
    const node = trie.follow(0, face);
    if (node) walk(cell, node, face);
  });
  const words = [];
  for (const [word, wordPath] of found) {
    if (word.length >= minLength) words.push({ word, path: wordPath, points: pointsFor(word, points) });
  }
  return words.sort((a, b) => b.points - a.points || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
}

export function pointsFor(word, points) {
  return points[Math.min(word.length, points.length - 1)] || 0;
}

/** One path of distinct touching cells whose faces spell `word`, or null (judge.py's
 * find_word_path: a Qu die spells "qu" only). */
export function findWordPath(board, word) {
  const { faces } = board;
  const neighbours = neighbourTable(board.rows, board.cols);
  const used = new Uint8Array(faces.length);
  const path = [];

  function from(cell, position) {
    const face = faces[cell];
    if (face === BLOCKED || !word.startsWith(face, position)) return false;
    path.push(cell);
    used[cell] = 1;
    if (position + face.length === word.length) return true;
    for (const next of neighbours[cell]) {
      if (!used[next] && from(next, position + face.length)) return true;
    }
    used[cell] = 0;
    path.pop();
    return false;
  }

  for (let cell = 0; cell < faces.length; cell += 1) {
    if (from(cell, 0)) return path;
  }
  return null;
}

/** Accents off and ligatures spelled out ("œuvre été" -> "oeuvre ete"): wordrules.py. */
export function foldAccents(text, ligatures) {
  const spelled = [...text].map((letter) => ligatures[letter] ?? ligatures[letter.toLowerCase()] ?? letter).join("");
  return spelled.normalize("NFKD").replace(/\p{M}/gu, "");
}

/** A player's entry as the word list writes words (judge.py's normalise_entry): trimmed,
 * composed, lower case, folded where the list folds; "" for anything but letters. */
export function normaliseEntry(entry, rules) {
  const text = String(entry).normalize("NFC").trim();
  if (!text || text.length > rules.max_entry_length || !/^\p{L}+$/u.test(text)) return "";
  const word = text.toLowerCase();
  return rules.fold_accents ? foldAccents(word, rules.ligatures) : word;
}

/** The verdict on one entry: {word, verdict, path}, with judge.py's verdict codes, checked
 * in its order (letters, length, already yours, on the board, in the dictionary). */
export function judgeEntry(entry, { board, trie, rules, minLength, already }) {
  const word = normaliseEntry(entry, rules);
  if (!word) return { word: String(entry).normalize("NFC").trim().slice(0, rules.max_entry_length).toLowerCase(), verdict: "not_a_word", path: null };
  if (word.length < minLength) return { word, verdict: "too_short", path: null };
  if (already.has(word)) return { word, verdict: "already_entered", path: null };
  const path = findWordPath(board, word);
  if (!path) return { word, verdict: "not_on_board", path: null };
  if (!trie.has(word)) return { word, verdict: "not_in_dictionary", path: null };
  return { word, verdict: "accepted", path };
}
