// A round of the player's profile: what this device keeps of a round it played, built from
// the room's results (docs/api.md, "Profile": the server checks the same fields).

const WORD = /^\p{L}{1,40}$/u;

/** The record of the round whose results `results` shows to player `you` in room `code`;
 * null when the player has no entry in them (a table screen, a spectator). */
export function roundRecord({ code, results, you, daily = null }) {
  const round = results && results.round;
  const mine = round && results.players.find((entry) => entry.id === you);
  if (!mine || !round.ended_at) return null;
  const words = (mine.words || []).filter((word) => WORD.test(word.word));
  const { best, longest } = bestAndLongest(words);
  return {
    id: `${code}/${round.game}/${round.number}/${round.ended_at}`,
    at: round.ended_at,
    room: code,
    game: round.game,
    size: round.rows,
    score: mine.round_points,
    words: mine.words_counted ?? words.filter((word) => !word.cancelled).length,
    found: words.length,
    players: results.players.length,
    best,
    longest,
    daily: daily && daily.date ? daily.date : null,
    offline: false,
  };
}

/** Of a round's accepted `words` ({word, points, cancelled}): the best that scored as
 * {word, points} and the longest word, each null when there is none. */
export function bestAndLongest(words) {
  let best = null;
  let longest = null;
  for (const word of words) {
    if (!word.cancelled && (!best || word.points > best.points)) best = { word: word.word, points: word.points };
    if (!longest || [...word.word].length > [...longest].length) longest = word.word;
  }
  return { best, longest };
}

/** `kept` with `added` joined in: one record per id (an added one replaces a kept one: a
 * challenge rescored the round), oldest first. */
export function mergeRecords(kept, added) {
  const byId = new Map(kept.map((record) => [record.id, record]));
  for (const record of added) byId.set(record.id, record);
  return [...byId.values()].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
}

/** Whether `record` has the shape this page draws (a record from an older page, or edited
 * by hand, is left out rather than break the page). */
export function wellFormed(record) {
  return Boolean(
    record &&
      typeof record.id === "string" &&
      Number.isFinite(record.at) &&
      Number.isInteger(record.size) &&
      Number.isFinite(record.score) &&
      Number.isFinite(record.words),
  );
}
