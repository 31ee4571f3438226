// The start page's "Daily board" and "Practice alone" cards (docs/api.md, "Daily board and
// solo practice"). Both create a room whose round the server starts at once, then open it.

import { ApiError, getJSON, postJSON } from "./lib/api.js";
import { $, h } from "./lib/dom.js";
import { gettext, ngettext, pageLanguage } from "./lib/i18n.js";
import { load, save, NICKNAME_KEY } from "./lib/storage.js";

// Entries the start page lists; the full leaderboard is /daily/.
const HOME_TOP = 10;

const dailyForm = $("#daily-form");
const dailyNickname = $("#daily-nickname");
const dailyError = $("#daily-error");
const dailyButton = $("#daily-play");
const practiceForm = $("#practice-form");
const practiceError = $("#practice-error");

function showError(element, message) {
  element.textContent = message;
  element.hidden = !message;
}

function failure(error) {
  return error instanceof ApiError ? error.message : gettext("Something went wrong. Please try again.");
}

/** "Friday 1 May" in the page's language; the board's date is a UTC date. */
export function dateText(iso) {
  const [year, month, day] = iso.split("-").map(Number);
  const format = new Intl.DateTimeFormat(pageLanguage(), { weekday: "long", day: "numeric", month: "long", timeZone: "UTC" });
  return format.format(new Date(Date.UTC(year, month - 1, day)));
}

export function pointsText(points) {
  return ngettext("%(count)s point", "%(count)s points", points);
}

function renderMine(played) {
  const mine = $("#daily-mine");
  mine.hidden = !played;
  if (!played) return;
  const best = played.best_word ? gettext(", best word %(word)s", { word: played.best_word.toUpperCase() }) : "";
  mine.textContent = gettext("You are #%(rank)s today with %(points)s%(best)s.", {
    rank: played.rank,
    points: pointsText(played.points),
    best,
  });
  // The leaderboard has this device's game: another one is practice, not the main action.
  dailyButton.textContent = gettext("Play again (practice)");
  dailyButton.classList.remove("primary");
}

function renderLeaderboard(entries, played, players) {
  const table = $("#daily-leaderboard");
  const top = entries.slice(0, HOME_TOP);
  table.hidden = top.length === 0;
  $("#daily-empty").hidden = top.length > 0;
  table.tBodies[0].replaceChildren(
    ...top.map((entry) =>
      h(
        "tr",
        { class: played && played.rank === entry.rank ? "mine" : null },
        h("td", { class: "rank", text: String(entry.rank) }),
        h("td", { class: "nickname", text: entry.nickname }),
        h("td", { class: "num", text: String(entry.points) }),
      ),
    ),
  );
  if (players > 0) {
    $("#daily-full").textContent = ngettext("Full leaderboard (%(count)s player)", "Full leaderboard (%(count)s players)", players);
  }
}

// The daily board is one English board for everyone, whatever the page's language: say so.
function renderDictionary(dictionary) {
  const line = $("#daily-dictionary");
  line.hidden = !dictionary;
  if (dictionary) line.textContent = gettext("Dictionary: %(title)s, the same for everyone.", { title: dictionary.title });
}

async function loadDaily() {
  try {
    const daily = await getJSON("/api/daily");
    $("#daily-date").textContent = dateText(daily.date);
    $("#daily-card").dataset.date = daily.date;
    renderDictionary(daily.dictionary);
    renderMine(daily.played);
    renderLeaderboard(daily.leaderboard, daily.played, daily.players);
    $("#daily-back").hidden = !daily.playing;
    if (daily.playing) $("#daily-back-link").href = daily.playing.url;
  } catch {
    // The form still works; the leaderboard shows on the next visit.
  }
}

dailyForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = dailyNickname.value.trim();
  if (!name) {
    showError(dailyError, gettext("Pick a nickname first."));
    dailyNickname.focus();
    return;
  }
  dailyButton.disabled = true;
  showError(dailyError, "");
  try {
    const { room } = await postJSON("/api/daily", { nickname: name });
    save(NICKNAME_KEY, name);
    window.location.assign(`/r/${room.code}/`);
  } catch (error) {
    showError(dailyError, failure(error));
    dailyButton.disabled = false;
  }
});

practiceForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(practiceForm);
  const seconds = data.get("round_seconds");
  const settings = {
    board_size: data.get("board_size"),
    round_seconds: seconds ? Number(seconds) : null,
    dictionary: data.get("dictionary"),
  };
  // Practice needs no nickname of its own: the one typed above, or the last one used.
  const nickname =
    $("#create-nickname").value.trim() || dailyNickname.value.trim() || load(NICKNAME_KEY, "") || gettext("Me");
  const button = $("#practice-start");
  button.disabled = true;
  showError(practiceError, "");
  try {
    const { room } = await postJSON("/api/practice", { nickname, settings });
    window.location.assign(`/r/${room.code}/`);
  } catch (error) {
    showError(practiceError, failure(error));
    button.disabled = false;
  }
});

dailyNickname.value = load(NICKNAME_KEY, "") || "";
loadDaily();
