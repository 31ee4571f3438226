// This device's rounds and its account: sending the rounds the account lacks (the
// profile page, and offline practice when the network comes back) and taking the
// account's from other devices (the profile page).

import { getJSON, postJSON } from "../lib/api.js";
import { deviceRounds, joinAccount, sentIds } from "./device.js";

// Rounds sent to the account per request (the API takes up to 500).
const BATCH = 200;

/** Send this device's rounds that the account of `email` lacks; returns how many went. */
export async function sendUnsent(email) {
  const sent = sentIds(email);
  const unsent = deviceRounds().filter((record) => !sent.has(record.id));
  const sentNow = [];
  try {
    for (let start = 0; start < unsent.length; start += BATCH) {
      const batch = unsent.slice(start, start + BATCH);
      await postJSON("/api/profile/rounds", { rounds: batch });
      sentNow.push(...batch.map((record) => record.id));
    }
  } finally {
    if (sentNow.length) joinAccount(email, [], sentNow);
  }
  return sentNow.length;
}

/** Send what the account lacks, then take the account's rounds: both sides end with every
 * round. Returns {rounds: this device's now, kept: how many the account keeps}. */
export async function syncAccount(email) {
  await sendUnsent(email);
  const answer = await getJSON("/api/profile/rounds");
  return { rounds: joinAccount(email, answer.rounds, []), kept: answer.rounds.length };
}
