// Each round this player finishes joins the profile of this device (profile/device.js): its
// score, words and best word, as the results show them; a rescored round's record is
// replaced. The profile page (/profile/) draws them.

import { keepRounds } from "../profile/device.js";
import { roundRecord } from "../profile/records.js";

export function recordRounds(store, code) {
  store.subscribe((current, changed) => {
    if (!changed.has("results") || !current.state.results) return;
    const record = roundRecord({ code, results: current.state.results, you: current.you, daily: current.state.daily });
    if (record) keepRounds([record]);
  });
}
