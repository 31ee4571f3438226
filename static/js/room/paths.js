// Paths on the board: which dice touch, the word a path spells, a path for a typed word.
// Cells are numbered row by row from 0 at the top left, as the server numbers them.

export function areNeighbours(a, b, cols) {
  if (a === b) return false;
  const rowDelta = Math.abs(Math.floor(a / cols) - Math.floor(b / cols));
  const colDelta = Math.abs((a % cols) - (b % cols));
  return rowDelta <= 1 && colDelta <= 1;
}

/** Whether `cell` may extend `path`: a playable die next to the last one, not yet used. */
export function canExtend(path, cell, faces, cols) {
  if (faces[cell] === "#" || path.includes(cell)) return false;
  return path.length === 0 || areNeighbours(path[path.length - 1], cell, cols);
}

export function wordOf(path, faces) {
  return path.map((cell) => faces[cell]).join("");
}

/** Lower-case letters of a typed entry, accents kept (the server folds them). */
function lettersOf(text) {
  return text.toLowerCase().replace(/[^\p{L}]/gu, "");
}

/**
 * One path of cells spelling `text`, or null, as the server finds one (solver.judge): a
 * Qu die matches "qu" only, two-letter faces their two letters. Accents are ignored.
 */
export function findPath(text, faces, cols) {
  const word = lettersOf(text).normalize("NFD").replace(/\p{M}/gu, "");
  if (!word) return null;
  const used = new Set();
  const path = [];

  function step(cell, at) {
    const face = faces[cell];
    if (face === "#" || used.has(cell)) return false;
    // The Qu die spells "qu", never a lone "q": the server spells words the same way.
    if (!word.startsWith(face, at)) return false;
    used.add(cell);
    path.push(cell);
    if (at + face.length === word.length) return true;
    for (let next = 0; next < faces.length; next += 1) {
      if (areNeighbours(cell, next, cols) && step(next, at + face.length)) return true;
    }
    used.delete(cell);
    path.pop();
    return false;
  }

  for (let cell = 0; cell < faces.length; cell += 1) {
    if (step(cell, 0)) return path;
  }
  return null;
}
