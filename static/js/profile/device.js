// This device's profile: its rounds in localStorage (lib/storage.js never throws), and
// which of them an account (by its email) already keeps.

import { load, remove, save } from "../lib/storage.js";
import { mergeRecords, wellFormed } from "./records.js";

const KEY = "boggle.profile";
// Rounds one device keeps; past it the oldest go (some 200 bytes each: a few MB at most).
export const MAX_ROUNDS = 20_000;

function stored() {
  const value = load(KEY, null);
  if (!value || !Array.isArray(value.rounds)) return { rounds: [], sent: [], account: null };
  return { rounds: value.rounds.filter(wellFormed), sent: value.sent || [], account: value.account || null };
}

function write({ rounds, sent, account }) {
  return save(KEY, { rounds: rounds.slice(-MAX_ROUNDS), sent: [...sent], account });
}

export function deviceRounds() {
  return stored().rounds;
}

/** The email of the account this device last joined its rounds to, or null. */
export function deviceAccount() {
  return stored().account;
}

/** Ids of this device's rounds that `account` already keeps. */
export function sentIds(account) {
  const kept = stored();
  return new Set(kept.account === account ? kept.sent : []);
}

/** Keep `records` (one per id: a rescored round replaces its record); a record that
 * changed is to be sent to the account again. */
export function keepRounds(records) {
  const kept = stored();
  const byId = new Map(kept.rounds.map((record) => [record.id, JSON.stringify(record)]));
  const changed = records.filter((record) => byId.get(record.id) !== JSON.stringify(record));
  if (!changed.length) return true;
  const sent = new Set(kept.sent);
  for (const record of changed) sent.delete(record.id);
  return write({ ...kept, rounds: mergeRecords(kept.rounds, changed), sent });
}

/** Join `account`'s rounds to this device's: every round now known to the account are the
 * ones it sent (`accountRounds`) and the ones just sent (`sentNow`). */
export function joinAccount(account, accountRounds, sentNow) {
  const kept = stored();
  const rounds = mergeRecords(kept.rounds, accountRounds.filter(wellFormed));
  const before = kept.account === account ? kept.sent : [];
  const sent = new Set([...before, ...sentNow, ...accountRounds.map((record) => record.id)]);
  write({ rounds, sent, account });
  return rounds;
}

export function clearDevice() {
  remove(KEY);
}
