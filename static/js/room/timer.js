// Where a round stands by the server's clock: shaking the dice, counting down, playing,
// or over (the deadline passed; the results are on their way).

/**
 * `round` as the server sends it, `now` the server's time in ms. Returns
 * {phase: "preparing" | "countdown" | "playing" | "over" | "ended", left, elapsed} where
 * `left` is ms until the next moment that matters (start or end; null when untimed).
 */
export function roundClock(round, now) {
  if (!round) return { phase: "none", left: null, elapsed: 0 };
  if (round.status === "ended") return { phase: "ended", left: 0, elapsed: 0 };
  if (round.status === "preparing" || round.starts_at === null) {
    return { phase: "preparing", left: null, elapsed: 0 };
  }
  if (now < round.starts_at) return { phase: "countdown", left: round.starts_at - now, elapsed: 0 };
  const elapsed = now - round.starts_at;
  if (round.ends_at === null) return { phase: "playing", left: null, elapsed };
  const left = round.ends_at - now;
  return left > 0 ? { phase: "playing", left, elapsed } : { phase: "over", left: 0, elapsed };
}

/** Fraction of the round's time still left (1 at the start, 0 at the end); null untimed. */
export function fractionLeft(round, now) {
  if (!round || round.ends_at === null || round.starts_at === null) return null;
  const total = round.ends_at - round.starts_at;
  if (total <= 0) return 0;
  return Math.min(1, Math.max(0, (round.ends_at - now) / total));
}
