// Words sent but not yet answered, kept in localStorage so that a dropped connection or a
// reload loses none: they are resent with the same client_id, which the server dedupes.

import { load, remove, save } from "../lib/storage.js";

export class Outbox {
  constructor(roomCode) {
    this.key = `boggle.outbox.${roomCode}`;
    const stored = load(this.key, null);
    this.round = stored && typeof stored.round === "number" ? stored.round : null;
    this.entries = stored && Array.isArray(stored.entries) ? stored.entries : [];
  }

  /** A new entry for round `round`; entries of other rounds are dropped. */
  add(round, entry) {
    if (this.round !== round) {
      this.round = round;
      this.entries = [];
    }
    this.entries.push({ client_id: entry.client_id, word: entry.word });
    this.persist();
  }

  /** The server answered this entry (or it can no longer count): forget it. */
  ack(clientId) {
    const before = this.entries.length;
    this.entries = this.entries.filter((entry) => entry.client_id !== clientId);
    if (this.entries.length !== before) this.persist();
  }

  /** Entries still unanswered for round `round`. */
  pending(round) {
    return this.round === round ? [...this.entries] : [];
  }

  clear() {
    this.round = null;
    this.entries = [];
    remove(this.key);
  }

  persist() {
    if (this.entries.length) save(this.key, { round: this.round, entries: this.entries });
    else remove(this.key);
  }
}

/** A client_id for an entry: random, and available on plain-http LAN addresses too
 * (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newClientId() {
  const bytes = new Uint8Array(12);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
