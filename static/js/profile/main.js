// The profile page (/profile/): this device's rounds (device.js) drawn as totals, a chart,
// the best round of each size, the best words and the daily board's streak; with an
// account, this device's new rounds go to it and its rounds from other devices come here.

import { ApiError } from "../lib/api.js";
import { $, h, showText } from "../lib/dom.js";
import { gettext, ngettext, pageLanguage } from "../lib/i18n.js";
import { scoreChart } from "./chart.js";
import { clearDevice, deviceRounds } from "./device.js";
import { summarize } from "./summary.js";
import { syncAccount } from "./sync.js";

const page = JSON.parse($("#profile-data").textContent);
const account = page.account; // {email} when this browser is signed in, else null
const DAILY_ROWS = 30;

const dateFormat = new Intl.DateTimeFormat(pageLanguage(), { dateStyle: "medium", timeZone: "UTC" });
const formatDay = (day) => dateFormat.format(new Date(`${day}T00:00:00Z`));
const formatTime = (ms) => dateFormat.format(new Date(ms));
const upper = (word) => word.toLocaleUpperCase(pageLanguage());

function today() {
  return new Date().toISOString().slice(0, 10);
}

function total(label, value) {
  return h("div", { class: "profile-total" }, h("dt", { text: label }), h("dd", { text: String(value) }));
}

function points(count) {
  return ngettext("%(count)s point", "%(count)s points", count);
}

function renderTotals(summary) {
  const { current, longest } = summary.streak;
  $("#profile-totals").replaceChildren(
    total(gettext("Games"), summary.games),
    total(gettext("Rounds"), summary.rounds),
    total(gettext("Words found"), summary.words),
    total(gettext("Daily streak"), ngettext("%(count)s day", "%(count)s days", current)),
  );
  showText($("#profile-longest-streak"), longest > current ? gettext("Longest streak: %(days)s.", { days: ngettext("%(count)s day", "%(count)s days", longest) }) : "");
}

function renderBests(summary) {
  $("#profile-bests").replaceChildren(
    ...summary.bestBySize.map(({ size, record }) =>
      h(
        "tr",
        {},
        h("th", { scope: "row", text: `${size}×${size}` }),
        h("td", { class: "num", text: String(record.score) }),
        h("td", { class: "num", text: String(record.words) }),
        h("td", { text: formatTime(record.at) }),
      ),
    ),
  );
  const words = [];
  if (summary.bestWord) {
    words.push(h("li", {}, gettext("Best word: "), h("strong", { text: upper(summary.bestWord.word) }), ` (${points(summary.bestWord.points)})`));
  }
  if (summary.longestWord) {
    words.push(h("li", {}, gettext("Longest word: "), h("strong", { text: upper(summary.longestWord) }), ` (${ngettext("%(count)s letter", "%(count)s letters", [...summary.longestWord].length)})`));
  }
  $("#profile-words").replaceChildren(...words);
}

function renderDaily(summary) {
  $("#profile-daily-card").hidden = !summary.daily.length;
  $("#profile-daily").replaceChildren(
    ...summary.daily.slice(0, DAILY_ROWS).map((record) =>
      h(
        "tr",
        {},
        h("th", { scope: "row", text: formatDay(record.daily) }),
        h("td", { class: "num", text: String(record.score) }),
        h("td", { class: "num", text: String(record.words) }),
        h("td", { class: "best-word", text: record.best ? upper(record.best.word) : "" }),
      ),
    ),
  );
}

function render(rounds) {
  const summary = summarize(rounds, today());
  $("#profile-empty").hidden = rounds.length > 0;
  $("#profile-body").hidden = rounds.length === 0;
  $("#profile-device-data").hidden = rounds.length === 0;
  if (!rounds.length) return;
  renderTotals(summary);
  const last = rounds.slice(-60);
  $("#profile-chart").replaceChildren(
    scoreChart(last, ngettext("Your scores in your last round: %(scores)s.", "Your scores in your last %(count)s rounds: %(scores)s.", last.length, { scores: last.map((record) => record.score).join(", ") })),
  );
  renderBests(summary);
  renderDaily(summary);
}

/** Send this device's rounds the account lacks, then take the account's: both sides end
 * with every round. */
async function sync() {
  const status = $("#profile-sync");
  try {
    const { rounds, kept } = await syncAccount(account.email);
    showText(status, ngettext("Your account keeps %(count)s round, from every device you sign in on.", "Your account keeps %(count)s rounds, from every device you sign in on.", kept));
    render(rounds);
  } catch (error) {
    const why = error instanceof ApiError ? error.message : "";
    showText(status, `${gettext("Your rounds are kept on this device; they go to your account next time.")} ${why}`.trim());
  }
}

function download(name, data) {
  const link = h("a", { href: URL.createObjectURL(new Blob([JSON.stringify(data, null, 1)], { type: "application/json" })), download: name });
  document.body.append(link);
  link.click();
  link.remove();
}

$("#download-device").addEventListener("click", () => {
  download("boggle-profile-device.json", { exported_at: new Date().toISOString(), rounds: deviceRounds() });
});

$("#clear-device").addEventListener("click", () => {
  const message = account
    ? gettext("Forget this device's rounds? Your account keeps the ones it has.")
    : gettext("Forget this device's rounds? They cannot be brought back.");
  if (!window.confirm(message)) return;
  clearDevice();
  render([]);
  showText($("#profile-device-status"), gettext("This device's rounds are forgotten."));
});

render(deviceRounds());
if (account) sync();
