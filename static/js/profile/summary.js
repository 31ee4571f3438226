// What the profile page says about a list of rounds (records.js): totals, the best round of
// each board size, the best and longest words, and the daily board's streak and history.

const DAY_MS = 86_400_000;

/** The UTC date (YYYY-MM-DD) `days` days before `today` (a YYYY-MM-DD string). */
export function dayBefore(today, days = 1) {
  return new Date(Date.parse(`${today}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
}

/** Days in a row with a daily board played: `current` ends today or yesterday (today's
 * board may still be ahead), `longest` anywhere. Dates are the boards' (UTC) dates. */
export function dailyStreak(dates, today) {
  const played = new Set(dates);
  let current = 0;
  let day = played.has(today) ? today : dayBefore(today);
  while (played.has(day)) {
    current += 1;
    day = dayBefore(day);
  }
  let longest = 0;
  let run = 0;
  let previous = null;
  for (const date of [...played].sort()) {
    run = previous && dayBefore(date) === previous ? run + 1 : 1;
    longest = Math.max(longest, run);
    previous = date;
  }
  return { current, longest };
}

function better(a, b) {
  return !b || a.score > b.score || (a.score === b.score && a.at < b.at);
}

/** Everything the page shows of `records` (oldest first), `today` being the UTC date. */
export function summarize(records, today) {
  const games = new Set();
  const bestBySize = new Map();
  const dailyByDate = new Map();
  let words = 0;
  let bestWord = null;
  let longestWord = null;
  for (const record of records) {
    games.add(`${record.room}/${record.game}/${record.offline ? record.id : ""}`);
    words += record.found || 0;
    if (better(record, bestBySize.get(record.size))) bestBySize.set(record.size, record);
    if (record.best && (!bestWord || record.best.points > bestWord.points)) bestWord = record.best;
    if (record.longest && (!longestWord || [...record.longest].length > [...longestWord].length)) longestWord = record.longest;
    // A date's first daily game is the one its leaderboard keeps; later ones are practice.
    if (record.daily && !dailyByDate.has(record.daily)) dailyByDate.set(record.daily, record);
  }
  const daily = [...dailyByDate.values()].sort((a, b) => (a.daily < b.daily ? 1 : -1));
  return {
    rounds: records.length,
    games: games.size,
    words,
    bestBySize: [...bestBySize.entries()].sort((a, b) => a[0] - b[0]).map(([size, record]) => ({ size, record })),
    bestWord,
    longestWord,
    streak: dailyStreak([...dailyByDate.keys()], today),
    daily,
  };
}
