// The Solve page (templates/solve/solve.html): a board typed or photographed (board-entry.js,
// photo.js), then shown on the board pane (board-pane.js) beside two tabs: every word on it
// (words.js, with its link and "Play this board": share.js, play.js) and the referee of a
// paper game (referee.js, evening.js). The address follows the board shown (history.
// replaceState): /solve/<rows>/?dictionary=…, plus #paper=… while an evening is checked.
// The view embeds the board in the address solved, or why it could not be.

import { ApiError, capitalise, getJSON } from "../lib/api.js";
import { $, showText } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { BoardEntry } from "./board-entry.js";
import { BoardPane } from "./board-pane.js";
import { parseBoard, solvePath } from "./board-text.js";
import { PAPER_PREFIX, decodeEvening } from "./evening.js";
import { PhotoReader } from "./photo.js";
import { PlayBoard } from "./play.js";
import { Referee } from "./referee.js";
import { BoardLink } from "./share.js";
import { Tabs } from "./tabs.js";
import { WordsView } from "./words.js";

const data = JSON.parse($("#solve-data").textContent);
const titles = new Map(data.dictionaries.map((entry) => [entry.name, entry.title]));

const layout = $("#solve-layout");
const entryCard = $("#entry-card");
const paneCard = $("#pane-card");
const boardForm = $("#board-form");
const solveButton = $("#solve-button");
const cancelEdit = $("#cancel-edit");
const dictionary = $("#solve-dictionary");
const minLength = $("#solve-min-length");
const wordsPanel = $("#words-panel");
const wordsStatus = $("#words-status");
const wordsError = $("#words-error");

// The board shown on the pane ({text, dictionary, minLength, board: the API's}), and its
// words once solved.
let shown = null;
let solved = null;

const entry = new BoardEntry(
  { sizes: $("#solve-size"), grid: $("#board-grid"), note: $("#grid-note"), error: $("#board-error") },
  { onSubmit: () => submitBoard() },
);
const pane = new BoardPane($("#pane-board"), $("#pane-caption"));
const words = new WordsView(
  {
    title: $("#words-title"),
    summary: $("#words-summary"),
    filters: $("#words-filters"),
    length: $("#filter-length"),
    start: $("#filter-start"),
    contains: $("#filter-contains"),
    count: $("#words-count"),
    clear: $("#filters-clear"),
    groups: $("#words-groups"),
  },
  pane,
);
const photo = new PhotoReader(
  {
    button: $("#photo-button"),
    input: $("#photo-input"),
    status: $("#photo-status"),
    progress: $("#photo-progress"),
    error: $("#photo-error"),
    place: $("#photo-place"),
    adjust: $("#photo-adjust"),
    corners: $("#photo-corners"),
  },
  {
    onRead: (result) => {
      editBoard();
      entry.fill(result.rows, result.letters.flat(), result.doubtful ? result.doubtful.flat() : null);
      const doubtful = $("#board-grid .die-cell.doubtful .die-input");
      (doubtful || solveButton).focus({ preventScroll: true });
      entryCard.scrollIntoView({ block: "nearest" });
    },
    onCorners: (open) => {
      boardForm.hidden = open;
    },
    side: () => entry.side,
  },
);
const referee = new Referee(
  {
    panel: $("#lists-panel"),
    form: $("#paper-card"),
    paperForm: $("#paper-form"),
    players: $("#paper-players"),
    add: $("#add-player"),
    cancel: $("#paper-cancel"),
    submit: $("#check-lists"),
    status: $("#paper-status"),
    error: $("#paper-error"),
    results: $("#paper-results"),
    evening: $("#evening-card"),
    eveningTitle: $("#evening-title"),
    eveningTable: $("#evening-table"),
    share: $("#share-evening"),
    shareStatus: $("#evening-status"),
    shareLink: $("#evening-link"),
  },
  {
    pane,
    board: () => boardToUse(),
    onChecked: (answer) => {
      showBoard(answer.board, answer.dictionary, referee.evening.minLength);
      if (solved && solved.board.board !== answer.board.board) forgetWords();
    },
    onNextBoard: () => newBoard(),
    onEvening: () => syncAddress(),
  },
);
const link = new BoardLink({ input: $("#board-link"), copy: $("#copy-link"), share: $("#share-link"), status: $("#link-status") });
new PlayBoard(
  { toggle: $("#play-toggle"), form: $("#play-form"), nickname: $("#play-nickname"), solo: $("#play-solo"), room: $("#play-room"), error: $("#play-error") },
  { board: () => shown },
);
const tabs = new Tabs($("#solve-tabs"), { onChange: () => tabChanged() });

// ------------------------------------------------------------------ the board's two states

/** The board to solve or check: the one shown, or the grid's (null after saying why not). */
function boardToUse() {
  if (shown && entryCard.hidden) return shown;
  const text = entry.read();
  if (!text) {
    entryCard.scrollIntoView({ block: "nearest" });
    return null;
  }
  return { text, dictionary: dictionary.value, minLength: Number(minLength.value) || null };
}

/** Show `board` (the API's) on the pane: the grid makes way for the dice. */
function showBoard(board, dictionaryName, shortest) {
  shown = { text: board.board, dictionary: dictionaryName, minLength: shortest || null, board };
  pane.show(board, dictionaryName);
  entry.fill(board.rows, board.grid.flat());
  dictionary.value = dictionaryName;
  minLength.value = shortest ? String(shortest) : "";
  const rule = shortest
    ? gettext("words of %(count)s letters or more", { count: shortest })
    : gettext("the usual shortest word for the size");
  $("#pane-meta").textContent = `${titles.get(dictionaryName) || dictionaryName} · ${rule}`;
  setEditing(false);
  syncAddress();
}

/** The grid again, with the board shown on it (to correct a die). */
function editBoard() {
  if (!entryCard.hidden) return;
  setEditing(Boolean(shown));
  const first = entry.inputs[0];
  if (first) first.focus({ preventScroll: true });
  entryCard.scrollIntoView({ block: "nearest" });
}

/** Editing (the grid shown) while a board is on the pane: its words wait, and its lists
 * are open to be checked again. */
function setEditing(editing) {
  const changing = Boolean(shown) && editing;
  entryCard.hidden = Boolean(shown) && !editing;
  paneCard.hidden = !shown || editing;
  $("#pane-tools").hidden = paneCard.hidden;
  cancelEdit.hidden = !changing;
  wordsPanel.inert = changing;
  wordsPanel.classList.toggle("waiting", changing);
  if (changing) referee.pauseResults();
  else referee.resumeResults();
  layout.dataset.state = entryCard.hidden ? "shown" : "entry";
}

/** A new board (after referee.nextBoard: the same players, empty lists): the grid emptied,
 * the words gone. */
function newBoard() {
  shown = null;
  forgetWords();
  photo.closeCorners({ restore: false });
  photo.reset();
  pane.unpick();
  entry.clear();
  setEditing(true);
  syncAddress();
  entryCard.scrollIntoView({ block: "start" });
  entry.inputs[0].focus({ preventScroll: true });
}

/** Enter in the grid, or Solve: on the lists tab, the board typed leads on to the lists. */
function submitBoard() {
  if (tabs.selected !== "lists") {
    solve();
  } else if (boardToUse()) {
    referee.focusLists();
  }
}

// ------------------------------------------------------------------ solving

async function solve() {
  const board = entryCard.hidden ? shown : boardToUse();
  if (!board) return;
  setWordsBusy(gettext("Solving…"));
  const query = new URLSearchParams({ board: board.text, dictionary: board.dictionary });
  if (board.minLength) query.set("min_length", String(board.minLength));
  let answer;
  try {
    answer = await getJSON(`/api/solve?${query}`);
  } catch (error) {
    setWordsBusy("");
    const message = error instanceof ApiError ? error.message : gettext("Something went wrong. Please try again.");
    // A board or dictionary refused: said where it is typed.
    if (["invalid_board", "unknown_dictionary", "invalid"].includes(error.code)) {
      editBoard();
      entry.setError(message);
    } else {
      showWordsError(message);
    }
    return;
  }
  setWordsBusy("");
  showSolved(answer, board.minLength);
  // The words from their top (under the board pane, which sticks on a phone).
  const title = $("#words-title");
  title.focus({ preventScroll: true });
  title.scrollIntoView({ block: "start" });
}

function showSolved(answer, shortest) {
  solved = answer;
  showWordsError("");
  words.render(answer);
  $("#words-empty").hidden = true;
  $("#words-results").hidden = false;
  $("#board-share").hidden = false;
  showBoard(answer.board, answer.dictionary, shortest);
  if (!answer.word_count) $("#pane-caption").textContent = gettext("No words fit this board.");
}

function forgetWords() {
  solved = null;
  $("#words-results").hidden = true;
  $("#board-share").hidden = true;
  $("#words-empty").hidden = false;
}

function setWordsBusy(text) {
  showText(wordsStatus, text);
  wordsPanel.setAttribute("aria-busy", text ? "true" : "false");
  solveButton.disabled = Boolean(text);
  if (text) showWordsError("");
}

function showWordsError(text) {
  showText(wordsError, capitalise(text));
}

function tabChanged() {
  const lists = tabs.selected === "lists";
  // The lists have their own button, under them; a word lit in one tab is not the other's.
  solveButton.hidden = lists;
  pane.unpick();
  // A board checked but not solved yet: its words come when their tab opens.
  if (!lists && shown && entryCard.hidden && (!solved || solved.board.board !== shown.text || solved.dictionary !== shown.dictionary)) solve();
}

// ------------------------------------------------------------------ the address

let addressTurn = 0;

/** The address bar follows the board shown, and keeps the evening checked. */
async function syncAddress() {
  const turn = (addressTurn += 1);
  const path = shown ? solvePath(shown.text, shown.dictionary, shown.minLength) : "/solve/";
  const hash = await referee.hash();
  if (turn !== addressTurn) return; // a later change wrote its own
  window.history.replaceState(null, "", path + hash);
  link.set(path);
}

// ------------------------------------------------------------------ page-wide

cancelEdit.addEventListener("click", () => {
  // Back to the board shown, as it was.
  if (shown) entry.fill(shown.board.rows, shown.board.grid.flat());
  setEditing(false);
  $("#edit-board").focus();
});
$("#edit-board").addEventListener("click", () => editBoard());
// A new board is the next board of a paper game too (the same players, empty lists).
$("#new-board").addEventListener("click", () => referee.nextBoard());
$("#clear-board").addEventListener("click", () => {
  photo.reset();
  entry.clear();
  entry.inputs[0].focus();
});
boardForm.addEventListener("submit", (event) => {
  event.preventDefault();
  submitBoard();
});

// A board pasted anywhere but a text field fills the grid (a board's text, or its link).
document.addEventListener("paste", (event) => {
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) return;
  const board = parseBoard(event.clipboardData ? event.clipboardData.getData("text") : "");
  if (!board) return;
  event.preventDefault();
  editBoard();
  entry.fill(board.side, board.faces);
  if (tabs.selected === "lists") referee.focusLists();
  else solveButton.focus();
});

function showOnline() {
  $("#solve-offline").hidden = navigator.onLine !== false;
}
window.addEventListener("online", showOnline);
window.addEventListener("offline", showOnline);
showOnline();

// ------------------------------------------------------------------ the page as it opens

async function start() {
  setEditing(false);
  if (data.answer) {
    showSolved(data.answer, Number(new URLSearchParams(window.location.search).get("min_length")) || null);
  } else if (data.board_text) {
    const board = parseBoard(data.board_text);
    if (board) entry.fill(board.side, board.faces);
    if (data.error) entry.setError(capitalise(data.error.message));
  }
  if (window.location.hash.startsWith(PAPER_PREFIX)) {
    tabs.select("lists");
    const evening = await decodeEvening(window.location.hash.slice(PAPER_PREFIX.length));
    if (!evening || !evening.boards.length) {
      referee.setError(gettext("This link to an evening is cut short or damaged: its boards cannot be read."));
      return;
    }
    await referee.restore(evening);
  }
}

tabChanged();
start();
