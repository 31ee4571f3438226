// Boards as text, the way the server writes and reads them (docs/api.md, "Board text"):
// reading what a person pastes into the grid (rows of letters, `q` the Qu die, commas in
// rows with two-letter faces, or a Solve page's link), writing the grid back as board text,
// and the board's address on the Solve page (/solve/<row>/<row>/…/?dictionary=…).

// The sizes the site plays: square boards of 4, 5 or 6 dice a side.
export const SIDES = [4, 5, 6];
// Faces of two letters (solver/board.py TWO_LETTER_FACES); Qu is the Qu die.
export const TWO_LETTER_FACES = ["qu", "in", "th", "er", "he", "an"];
export const BLOCKED = "#";

/** Whether `face` (lower case) is one a die can show. */
export function isFace(face) {
  return /^[a-z]$/.test(face) || face === BLOCKED || TWO_LETTER_FACES.includes(face);
}

/** Letters without accents, lower case ("É" → "e"): dice carry plain letters. */
export function plainLetters(text) {
  return String(text).normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

// One row's possible readings, preferred first (the server's order): with commas, its
// cells; else one die per character, then (when different) "qu" as the Qu die.
function rowReadings(row) {
  if (row.includes(",")) {
    const cells = row.split(",").map((cell) => (cell === "q" ? "qu" : cell));
    return cells.every(isFace) ? [cells] : null;
  }
  if (!/^[a-z#]+$/.test(row)) return null;
  const letters = [...row].map((cell) => (cell === "q" ? "qu" : cell));
  const merged = row.match(/qu|./g).map((cell) => (cell === "q" ? "qu" : cell));
  return merged.length === letters.length ? [letters] : [letters, merged];
}

/** The board text inside a Solve page's link, or `text` itself. */
function boardInLink(text) {
  const link = text.match(/\/solve\/([^?#\s]+)/);
  if (!link) return text;
  try {
    return decodeURIComponent(link[1]).replace(/\/+/g, " ");
  } catch {
    return text;
  }
}

/**
 * A board from text as people paste it, or null when it is none the site plays:
 * {side, faces} with `faces` row by row ("qu" for the Qu die, "#" blocked).
 */
export function parseBoard(text) {
  const source = plainLetters(boardInLink(String(text || ""))).trim();
  const rows = source.split(/[\s/]+/).filter(Boolean);
  if (!rows.length || rows.length > 6) return null;
  const readings = rows.map(rowReadings);
  if (readings.some((options) => !options)) return null;
  let cells = null;
  if (rows.length === 1) {
    cells = readings[0].find((option) => SIDES.includes(Math.sqrt(option.length)));
    return cells ? { side: Math.sqrt(cells.length), faces: cells } : null;
  }
  // Rows of equal length: letter by letter where that works, else the one width they share.
  const widths = readings.map((options) => new Set(options.map((option) => option.length)));
  const width = [...widths[0]].find((length) => widths.every((set) => set.has(length)));
  if (width === undefined || width !== rows.length || !SIDES.includes(width)) return null;
  cells = readings.flatMap((options) => options.find((option) => option.length === width));
  return { side: width, faces: cells };
}

/** Board text of `faces` (row by row, `side` a row), as the server writes it. */
export function boardText(faces, side) {
  const rows = [];
  for (let row = 0; row < side; row += 1) {
    const cells = faces.slice(row * side, (row + 1) * side);
    const simple = cells.every((face) => face.length === 1 || face === "qu");
    rows.push(simple ? cells.map((face) => (face === "qu" ? "q" : face)).join("") : cells.join(","));
  }
  return rows.join(" ");
}

/** The Solve page's address of a board: its rows as path segments, the dictionary, and the
 * shortest word when not the size's usual one. */
export function solvePath(text, dictionary, minLength = null) {
  // Commas stay as they are (rows with two-letter faces): a path may hold them.
  const rows = String(text).trim().split(/\s+/).map((row) => encodeURIComponent(row).replace(/%2C/gi, ","));
  const query = new URLSearchParams();
  if (dictionary) query.set("dictionary", dictionary);
  if (minLength) query.set("min_length", String(minLength));
  const search = query.toString();
  return `/solve/${rows.join("/")}/${search ? `?${search}` : ""}`;
}
