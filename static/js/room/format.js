// How things read on the page: dice faces, times, points, shares.

/** A die face as printed: "A", "Qu", "Th"; "" for a blocked square. */
export function faceText(face) {
  if (!face || face === "#") return "";
  return face[0].toUpperCase() + face.slice(1);
}

/** m:ss for a number of milliseconds (rounded up, never negative). */
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return `${minutes}:${seconds}`;
}

/** "3 min", "90 s", "untimed" for a round length in seconds (null: untimed). */
export function durationText(seconds) {
  if (!seconds) return "untimed";
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  if (seconds > 60) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${seconds} s`;
}

export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}

/** A share of the maximum (0..1) as a percentage: "12%", "3.5%", "0%". */
export function percentText(share) {
  const value = (share || 0) * 100;
  if (value === 0) return "0%";
  return value < 10 ? `${value.toFixed(1)}%` : `${Math.round(value)}%`;
}

/** Points a word scores by the round's table (letters counted, so Qu is two). */
export function wordPoints(word, pointsTable) {
  const table = pointsTable || {};
  const length = word.length;
  if (table[String(length)] !== undefined) return table[String(length)];
  const lengths = Object.keys(table).map(Number);
  if (!lengths.length) return 0;
  const longest = Math.max(...lengths);
  return length > longest ? table[String(longest)] : 0;
}

export function pointsText(points) {
  return `${points} ${points === 1 ? "pt" : "pts"}`;
}

/** 1st, 2nd, 3rd, 4th … */
export function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th"}`;
}

/** Each player's place in a round's results (ranked by the server): equal points, equal place. */
export function roundRanks(players) {
  let rank = 0;
  let previous = null;
  return players.map((entry, index) => {
    if (entry.round_points !== previous) rank = index + 1;
    previous = entry.round_points;
    return rank;
  });
}

/** A player's words that scored (cancelled duplicates left out). */
export function countedWords(entry) {
  return entry.words.filter((word) => !word.cancelled).length;
}
