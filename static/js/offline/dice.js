// Shaking the dice offline, as the server rolls (solver/dice.py): the set's dice shuffled
// over the cells, then one face of each showing. The dice come from the server's rulebook.

/** A whole number from 0 to `below` - 1, from the browser's strong randomness. */
function randomBelow(below) {
  const value = new Uint32Array(1);
  crypto.getRandomValues(value);
  return value[0] % below;
}

/** A board of `size` (the rulebook's {rows, cols, dice}): {rows, cols, faces}. */
export function rollBoard(size, random = randomBelow) {
  const dice = size.dice.map((die) => die.slice());
  for (let i = dice.length - 1; i > 0; i -= 1) {
    const j = random(i + 1);
    [dice[i], dice[j]] = [dice[j], dice[i]];
  }
  return { rows: size.rows, cols: size.cols, faces: dice.map((die) => die[random(die.length)]) };
}

/** A board's text as the server writes it (solver/board.py's to_text): rows apart, the Qu
 * die "q", a row with another two-letter face comma-separated. */
export function boardText({ rows, cols, faces }) {
  const lines = [];
  for (let r = 0; r < rows; r += 1) {
    const row = faces.slice(r * cols, (r + 1) * cols);
    lines.push(row.every((face) => face.length === 1 || face === "qu") ? row.map((face) => (face === "qu" ? "q" : face)).join("") : row.join(","));
  }
  return lines.join(" ");
}
