// One practice round played in the browser: its board and clock, each entry judged at once
// (solver.js), and at the end every word on the board with the ones found, and the record
// the profile keeps (profile/records.js's fields, marked offline).

import { bestAndLongest } from "../profile/records.js";
import { boardText } from "./dice.js";
import { judgeEntry, pointsFor, solveBoard } from "./solver.js";

export class PracticeRound {
  /** `board` {rows, cols, faces}; `list` {header, trie} (wordlist.js); `size` the
   * rulebook's size (min_length, points); `rules` the rulebook; `seconds` the length. */
  constructor({ board, list, size, rules, seconds, now = Date.now(), endsAt = null }) {
    this.board = board;
    this.list = list;
    this.size = size;
    this.judging = {
      board,
      trie: list.trie,
      minLength: size.min_length,
      rules: { fold_accents: Boolean(list.header.rules?.fold_accents), ligatures: rules.ligatures, max_entry_length: rules.max_entry_length },
      already: new Set(),
    };
    this.startsAt = now;
    this.endsAt = endsAt ?? now + seconds * 1000;
    this.endedAt = null;
    this.entries = [];
    this.typed = []; // every entry as typed, with when: what `saved()` keeps
  }

  /** What a reload needs to carry the round on (the page keeps it in localStorage). */
  saved() {
    return { board: this.board, startsAt: this.startsAt, endsAt: this.endsAt, typed: this.typed };
  }

  /** The round `saved` kept, its entries judged again (the same verdicts: nothing else
   * changed), with the list and rules of its dictionary. */
  static restore(saved, { list, size, rules }) {
    const round = new PracticeRound({ board: saved.board, list, size, rules, seconds: 0, now: saved.startsAt, endsAt: saved.endsAt });
    for (const { text, at } of saved.typed) round.submit(text, at);
    return round;
  }

  /** The round as the timer (room/timer.js) reads a server's round. */
  get clock() {
    return { status: this.endedAt ? "ended" : "running", starts_at: this.startsAt, ends_at: this.endsAt };
  }

  /** The board as the board view (room/board.js) draws a server's round. */
  get shown() {
    const { rows, cols, faces } = this.board;
    const grid = Array.from({ length: rows }, (_, r) => faces.slice(r * cols, (r + 1) * cols));
    return { number: 1, board: boardText(this.board), rows, cols, grid, cancel_duplicates: false };
  }

  isOver(now = Date.now()) {
    return this.endedAt !== null || now >= this.endsAt;
  }

  /** Judge `entry`: {word, verdict, path, accepted, points}; after the end, round_over. */
  submit(entry, now = Date.now()) {
    if (this.isOver(now)) return { word: String(entry).trim().toLowerCase(), verdict: "round_over", path: null, accepted: false, points: 0 };
    this.typed.push({ text: String(entry), at: now });
    const judgement = judgeEntry(entry, this.judging);
    const accepted = judgement.verdict === "accepted";
    const result = { ...judgement, accepted, points: accepted ? pointsFor(judgement.word, this.size.points) : 0 };
    if (accepted) this.judging.already.add(result.word);
    if (result.word) this.entries.push(result);
    return result;
  }

  accepted() {
    return this.entries.filter((entry) => entry.accepted);
  }

  score() {
    return this.accepted().reduce((sum, entry) => sum + entry.points, 0);
  }

  /** End the round (once); its results: every word on the board, each marked found or not. */
  end(now = Date.now()) {
    if (this.endedAt === null) this.endedAt = Math.min(now, this.endsAt);
    const found = new Set(this.accepted().map((entry) => entry.word));
    const solution = solveBoard(this.board, this.list.trie, this.size.min_length, this.size.points).map((entry) => ({
      ...entry,
      found_by: found.has(entry.word) ? ["you"] : [],
    }));
    return {
      round: this.shown,
      solution,
      word_count: solution.length,
      max_points: solution.reduce((sum, entry) => sum + entry.points, 0),
      score: this.score(),
      found: found.size,
    };
  }

  /** The profile's record of the ended round (docs/api.md, "Profile"). */
  record() {
    const accepted = this.accepted();
    const { best, longest } = bestAndLongest(accepted);
    const suffix = Math.random().toString(36).slice(2, 8);
    return {
      id: `offline/${this.endedAt}/${suffix}`,
      at: this.endedAt,
      room: "offline",
      game: 1,
      size: this.board.rows,
      score: this.score(),
      words: accepted.length,
      found: accepted.length,
      players: 1,
      best,
      longest,
      daily: null,
      offline: true,
    };
  }
}
