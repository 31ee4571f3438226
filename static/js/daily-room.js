// A daily board's room (its state has `daily`): played alone, so no invitation; when the
// round ends, the results say where the game landed on today's leaderboard and link back.
// The room page's own modules run the game; this one only watches the phase they set.

import { ApiError, getJSON, postJSON } from "./lib/api.js";
import { $, h } from "./lib/dom.js";
import { gettext, ngettext } from "./lib/i18n.js";

const root = $("#room");
const initial = JSON.parse($("#room-state").textContent);

function points(count) {
  return ngettext("%(count)s point", "%(count)s points", count);
}

function message(daily) {
  const entry = daily.entry;
  if (daily.status === "counted" && entry) {
    return gettext("Daily board: you are #%(rank)s on today's leaderboard with %(points)s.", {
      rank: entry.rank,
      points: points(entry.points),
    });
  }
  if (daily.status === "practice" && entry) {
    return gettext("Practice: today's leaderboard keeps your first game (#%(rank)s, %(points)s).", {
      rank: entry.rank,
      points: points(entry.points),
    });
  }
  if (daily.status === "unlisted" && entry) {
    // The result is kept, but not on the public leaderboard (docs/api.md, "What the
    // leaderboard guarantees").
    const why = {
      no_points: gettext("Daily board: no points this time, so today's leaderboard does not list you."),
      nickname_taken: gettext("Daily board: another device put this nickname on today's leaderboard first, so your score is not listed."),
      under_review: gettext("Daily board: this score does not look like a person's play (too fast, or too much of the board), so it is not listed while staff look at it."),
    };
    return why[entry.unlisted] || why.no_points;
  }
  return gettext("Your score is on its way to today's leaderboard.");
}

// Practice after the daily board: the same size and length as the daily board, under the
// same nickname (POST /api/practice, as the start page's "Practice alone" card).
const PRACTICE_SETTINGS = { board_size: "4x4", round_seconds: 180 };

function myNickname() {
  const me = (initial.players || []).find((player) => player.id === initial.you);
  return me ? me.nickname : gettext("Me");
}

async function practice(button, error) {
  button.disabled = true;
  error.hidden = true;
  try {
    const { room } = await postJSON("/api/practice", { nickname: myNickname(), settings: PRACTICE_SETTINGS });
    window.location.assign(`/r/${room.code}/`);
  } catch (failure) {
    error.textContent = failure instanceof ApiError ? failure.message : gettext("Something went wrong. Please try again.");
    error.hidden = false;
    button.disabled = false;
  }
}

function banner() {
  let box = $("#daily-result");
  if (!box) {
    const error = h("p", { class: "form-error", role: "alert", hidden: true });
    const practiceButton = h("button", { type: "button", class: "button small", id: "daily-practice" }, gettext("Practice alone"));
    practiceButton.addEventListener("click", () => practice(practiceButton, error));
    box = h(
      "div",
      { id: "daily-result", class: "daily-result", role: "status" },
      h("p", { class: "daily-result-text" }),
      h(
        "p",
        { class: "daily-result-links" },
        h("a", { class: "button small primary", href: `/daily/?date=${initial.daily.date}` }, gettext("Today's leaderboard")),
        practiceButton,
        h("a", { class: "button small", href: "/#daily-card" }, gettext("Back to the start page")),
      ),
      error,
    );
    $("#results-panel .results-head").after(box);
  }
  return box;
}

let shownFor = null;

async function showResult(retries = 3) {
  const code = root.dataset.code;
  let state;
  try {
    ({ room: state } = await getJSON(`/api/rooms/${code}`));
  } catch {
    return;
  }
  const round = state.round;
  // Only the room's first round plays the daily board; later ones are random boards.
  const box = banner();
  box.hidden = !state.daily || !round || round.number !== 1 || round.status !== "ended";
  if (box.hidden) return;
  box.querySelector(".daily-result-text").textContent = message(state.daily);
  if (state.daily.status === "playing" && retries > 0) {
    window.setTimeout(() => showResult(retries - 1), 1000);
  }
}

function onPhase() {
  if (root.dataset.phase === "results" && shownFor !== "results") showResult();
  shownFor = root.dataset.phase;
}

if (initial.daily) {
  // Nobody else can join: the invitation would only confuse.
  const share = $("#share-card");
  if (share) share.hidden = true;
  new MutationObserver(onPhase).observe(root, { attributes: true, attributeFilter: ["data-phase"] });
  onPhase();
}
