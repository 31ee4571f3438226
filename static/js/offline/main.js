// Offline practice (/offline/): a round alone, rolled, timed and judged in this browser
// with the chosen dictionary's word list, so it plays with no network once the service
// worker (/sw.js) keeps the page and the list. The results show every word on the board
// with its path; the round joins this device's profile, and its account when the network
// is there.

import { $, announce, h, isTouchFirst, showText } from "../lib/dom.js";
import { gettext, ngettext, pageLanguage } from "../lib/i18n.js";
import { load, remove, save } from "../lib/storage.js";
import { deviceAccount, keepRounds } from "../profile/device.js";
import { sendUnsent } from "../profile/sync.js";
import { BoardInput } from "../room/board-input.js";
import { BoardView } from "../room/board.js";
import { pointsText, reasonText, wordsText } from "../room/format.js";
import { findPath, wordOf } from "../room/paths.js";
import { TimerView } from "../room/timer-view.js";
import { RoundWords } from "../room/words-list.js";
import { rollBoard } from "./dice.js";
import { loadList } from "./lists.js";
import { PracticeRound } from "./round.js";

const data = JSON.parse($("#offline-data").textContent);
const CHOICE_KEY = "boggle.offline.choice"; // {dictionary, size, seconds} last played
// The round being played, so that a reload (or the phone closing the page) loses nothing:
// {dictionary, size, round: PracticeRound.saved()}.
const ROUND_KEY = "boggle.offline.round";
const FLASH_MS = 700;

const el = {
  setup: $("#setup-panel"),
  form: $("#setup-form"),
  dictionary: $("#offline-dictionary"),
  seconds: $("#offline-seconds"),
  listStatus: $("#list-status"),
  network: $("#network-status"),
  error: $("#setup-error"),
  start: $("#offline-start"),
  play: $("#play-panel"),
  rules: $("#round-rules"),
  entryForm: $("#entry-form"),
  entry: $("#entry"),
  verdict: $("#verdict"),
  endRound: $("#end-round"),
  myScore: $("#my-score"),
  myWordsEmpty: $("#my-words-empty"),
  myWords: $("#my-words"),
  results: $("#results-panel"),
  resultsTitle: $("#results-title"),
  resultsLead: $("#results-lead"),
  resultsSaved: $("#results-saved"),
  resultsBody: $("#results-body"),
  again: $("#play-again"),
};

/** The results' words, drawn as a room's (room/words-list.js) for a round of one player. */
class PracticeWords extends RoundWords {
  get you() {
    return "you";
  }

  nickname() {
    return gettext("you");
  }

  detail(word) {
    const entry = this.results.solution.find((item) => item.word === word);
    if (!entry) return gettext("not on the board");
    const points = pointsText(entry.points);
    return entry.found_by.length ? gettext("%(points)s; you found it", { points }) : gettext("%(points)s; you missed it", { points });
  }
}

const state = { list: null, listFor: null, round: null, roundOf: null, ticking: null, flash: null };
const board = new BoardView($("#play-board"), { label: gettext("The board") });
const input = new BoardInput(board, {
  onChange: (path) => {
    el.entry.value = "";
    board.highlight(path);
  },
  onSubmit: (path) => submit(wordOf(path, board.faces), path),
});
const timer = new TimerView({ timer: $("#timer"), label: $("#timer-label"), value: $("#timer-value"), bar: $("#timebar-fill") });
const words = new PracticeWords(el.resultsBody);

// ---------------------------------------------------------------- choosing

function chosen() {
  return data.dictionaries.find((entry) => entry.name === el.dictionary.value) || null;
}

function chosenSize() {
  return Number(($("#offline-size input:checked") || { value: "4x4" }).value.split("x")[0]);
}

function remember() {
  save(CHOICE_KEY, { dictionary: el.dictionary.value, size: chosenSize(), seconds: el.seconds.value });
}

function fillChoices() {
  const last = load(CHOICE_KEY, {}) || {};
  el.dictionary.replaceChildren(...data.dictionaries.map((entry) => new Option(entry.title, entry.name)));
  const names = data.dictionaries.map((entry) => entry.name);
  el.dictionary.value = names.includes(last.dictionary) ? last.dictionary : names.includes(data.dictionary) ? data.dictionary : names[0] || "";
  const size = $(`#offline-size input[value="${last.size}x${last.size}"]`);
  if (size) size.checked = true;
  if ([...el.seconds.options].some((option) => option.value === last.seconds)) el.seconds.value = last.seconds;
}

function showNetwork() {
  showText(el.network, navigator.onLine ? "" : gettext("You are offline. Practice rounds still play here, judged on this device."));
}

/** Get the chosen dictionary's list (kept by the service worker from then on). */
async function prepare() {
  const entry = chosen();
  el.start.disabled = true;
  showText(el.error, "");
  if (!entry) {
    showText(el.listStatus, gettext("No dictionary is ready on this site yet."));
    return;
  }
  if (state.listFor === entry.name && state.list) {
    showReady(entry, state.list);
    return;
  }
  state.list = null;
  state.listFor = entry.name;
  showText(el.listStatus, gettext("Getting the %(title)s word list…", { title: entry.title }));
  try {
    const list = await loadList(entry);
    if (state.listFor !== entry.name) return; // another dictionary was chosen meanwhile
    state.list = list;
    showReady(entry, list);
  } catch {
    if (state.listFor !== entry.name) return;
    showText(
      el.listStatus,
      navigator.onLine
        ? gettext("The %(title)s word list did not load. Try again in a moment.", { title: entry.title })
        : gettext("The %(title)s word list is not on this device yet: open this page once with a network to keep it.", { title: entry.title }),
    );
  }
}

function showReady(entry, list) {
  el.start.disabled = false;
  showText(
    el.listStatus,
    ngettext("%(title)s: %(count)s word, kept on this device for playing offline.", "%(title)s: %(count)s words, kept on this device for playing offline.", list.trie.words, {
      title: entry.title,
      count: list.trie.words.toLocaleString(pageLanguage()),
    }),
  );
}

// ---------------------------------------------------------------- playing

function start() {
  const entry = chosen();
  const size = entry && data.rules[entry.language]?.sizes[String(chosenSize())];
  if (!state.list || !size) {
    showText(el.error, gettext("Pick a dictionary that is kept on this device first."));
    return;
  }
  remember();
  const seconds = Number(el.seconds.value) || 180;
  const round = new PracticeRound({ board: rollBoard(size), list: state.list, size, rules: data.rules[entry.language], seconds });
  begin(round, entry);
  keepPlaying();
  if (!isTouchFirst()) el.entry.focus();
  announce(gettext("The round has started."));
}

/** Show `round` (of dictionary `entry`) being played, its words so far listed. */
function begin(round, entry) {
  state.round = round;
  state.roundOf = entry.name;
  const size = round.size;
  el.rules.textContent = gettext("%(size)s · %(dictionary)s · words of %(count)s letters or more", {
    size: `${size.rows}×${size.cols}`,
    dictionary: entry.title,
    count: size.min_length,
  });
  board.setBoard(round.shown);
  el.myWords.replaceChildren();
  el.myWordsEmpty.hidden = true;
  el.myScore.textContent = "";
  round.entries.forEach(addWord);
  el.myWordsEmpty.hidden = round.entries.length > 0;
  el.verdict.className = "verdict";
  el.verdict.replaceChildren();
  el.setup.hidden = true;
  el.results.hidden = true;
  el.play.hidden = false;
  input.setEnabled(true);
  window.clearInterval(state.ticking);
  state.ticking = window.setInterval(tick, 250);
  tick(); // a restored round whose time ran out meanwhile ends here
}

function keepPlaying() {
  const round = state.round;
  save(ROUND_KEY, { dictionary: state.roundOf, size: round.size.rows, round: round.saved() });
}

/** A round a reload interrupted: carried on (or, its time up meanwhile, ended and kept). */
async function resume() {
  const saved = load(ROUND_KEY, null);
  const entry = saved && data.dictionaries.find((item) => item.name === saved.dictionary);
  const size = entry && data.rules[entry.language]?.sizes[String(saved.size)];
  if (!size || !saved.round || !Array.isArray(saved.round.typed)) return false;
  try {
    const list = state.listFor === entry.name && state.list ? state.list : await loadList(entry);
    state.list = list;
    state.listFor = entry.name;
    el.dictionary.value = entry.name;
    showReady(entry, list);
    begin(PracticeRound.restore(saved.round, { list, size, rules: data.rules[entry.language] }), entry);
    return true;
  } catch {
    // Its list cannot be had now (offline, never kept): the round stays saved for when it
    // can, unless a new round replaces it.
    return false;
  }
}

function tick() {
  const round = state.round;
  if (!round) return;
  timer.show(round.clock, Date.now());
  if (round.isOver()) finish();
}

function submit(text, path = null) {
  const round = state.round;
  if (!round || !text.trim()) return;
  const result = round.submit(text);
  if (result.verdict === "round_over") {
    finish();
    return;
  }
  keepPlaying();
  showVerdict(result, path || result.path);
  if (result.word) addWord(result);
}

function showVerdict(result, path) {
  const kind = result.accepted ? "good" : "bad";
  const word = result.word.toUpperCase();
  const text = result.accepted ? `${word}  +${result.points}` : word ? gettext("%(word)s: %(reason)s", { word, reason: reasonText(result) }) : reasonText(result);
  el.verdict.className = `verdict ${kind} show`;
  el.verdict.replaceChildren(h("span", { class: "verdict-icon", "aria-hidden": "true", text: result.accepted ? "✓" : "✗" }), h("span", { text }));
  void el.verdict.offsetWidth;
  el.verdict.classList.add("pop");
  announce(result.accepted ? gettext("%(word)s: accepted, %(points)s", { word: result.word, points: pointsText(result.points) }) : text);
  board.highlight(path || [], kind);
  window.clearTimeout(state.flash);
  state.flash = window.setTimeout(() => {
    if (!input.path.length && !el.entry.value) board.highlight([]);
  }, FLASH_MS);
}

function wordItem(entry) {
  const kind = entry.accepted ? "good" : "bad";
  const status = entry.accepted ? `+${entry.points}` : reasonText(entry);
  return h(
    "li",
    { class: `word ${kind}`, dataset: { word: entry.word, verdict: entry.verdict } },
    h("span", { class: "word-icon", "aria-hidden": "true", text: entry.accepted ? "✓" : "✗" }),
    entry.accepted ? h("span", { class: "word-text", text: entry.word }) : h("s", { class: "word-text", text: entry.word }),
    h("span", { class: "word-status", text: status }),
  );
}

function addWord(entry) {
  el.myWordsEmpty.hidden = true;
  el.myWords.prepend(wordItem(entry));
  const round = state.round;
  el.myScore.textContent = `${wordsText(round.accepted().length)} · ${pointsText(round.score())}`;
}

// ---------------------------------------------------------------- results

function finish() {
  const round = state.round;
  if (!round || el.play.hidden) return;
  window.clearInterval(state.ticking);
  input.setEnabled(false);
  const results = round.end();
  remove(ROUND_KEY);
  showResults(results);
  keepRound(round);
}

function showResults(results) {
  words.results = results;
  el.resultsLead.textContent = gettext("You found %(found)s of %(all)s words: %(points)s.", {
    found: results.found,
    all: results.word_count,
    points: pointsText(results.score),
  });
  const mine = state.round.entries;
  const myCard = h(
    "section",
    { class: "card my-words", "aria-labelledby": "results-mine-title" },
    h("h2", { id: "results-mine-title", text: gettext("Your words") }),
    mine.length ? h("ol", { class: "word-list" }, ...mine.map(wordItem)) : h("p", { class: "hint", text: gettext("You entered no words this round.") }),
  );
  el.resultsBody.replaceChildren(
    h(
      "div",
      { class: "results-layout" },
      myCard,
      words.boardCard(results, gettext("This round's board")),
      words.allWords(results, () => gettext("you")),
    ),
  );
  el.play.hidden = true;
  el.results.hidden = false;
  el.resultsTitle.focus();
}

/** The round joins this device's profile, and its account if it has one and the network
 * is there (else when the network comes back). */
async function keepRound(round) {
  const kept = keepRounds([round.record()]);
  showText(el.resultsSaved, kept ? gettext("Kept in your profile on this device.") : gettext("This browser keeps nothing (private browsing?): the round is not in your profile."));
  if (kept && (await sendToAccount())) {
    showText(el.resultsSaved, gettext("Kept in your profile, on this device and in your account."));
  }
}

/** Send the rounds the account lacks; false when there is no account, no network or the
 * account refused them (they wait for next time). */
async function sendToAccount() {
  const email = deviceAccount();
  if (!email || !navigator.onLine) return false;
  try {
    await sendUnsent(email);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- wiring

el.form.addEventListener("submit", (event) => {
  event.preventDefault();
  start();
});
el.dictionary.addEventListener("change", () => {
  remember();
  prepare();
});
el.entryForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = el.entry.value;
  el.entry.value = "";
  submit(text);
});
el.entry.addEventListener("input", () => {
  input.setPath([]);
  const path = el.entry.value ? findPath(el.entry.value, board.faces, board.cols) : null;
  board.highlight(path || []);
});
el.endRound.addEventListener("click", () => finish());
el.again.addEventListener("click", () => start());
window.addEventListener("online", () => {
  showNetwork();
  sendToAccount();
  if (!state.list) prepare();
});
window.addEventListener("offline", showNetwork);

fillChoices();
showNetwork();
resume().then((resumed) => {
  if (!resumed) prepare();
});
sendToAccount();
