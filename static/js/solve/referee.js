// "Check our lists": the referee of a game played on paper. Each player's name and the
// words they wrote (pasted one a line, or with spaces or commas between), up to 12 players;
// "Words two players wrote cancel" on by default. POST /api/solve/check judges every word:
// the page shows the scores and each list with its verdicts (cancelled words struck, refused
// ones with their reason), and the words everyone missed, each lighting its path on the
// board pane. "Next board" keeps the players for the next board and the evening's running
// totals (evening.js), which a link carries whole.

import { ApiError, postJSON } from "../lib/api.js";
import { h, showText } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { meaningButton } from "../room/definitions.js";
import { pointsText, wordsText } from "../room/format.js";
import { copyText } from "../room/share.js";
import { listWords } from "../room/paper.js";
import { PaneWords } from "./board-pane.js";
import { Evening, encodeEvening, nameKey, totalsTable, PAPER_PREFIX } from "./evening.js";

// The API's bounds (solve/answers.py).
const MAX_PLAYERS = 12;
const MAX_WORDS = 500;
const NAME_MAX_LENGTH = 24;
// The refused words whose meaning is worth a look (a word, just not here or not allowed).
const MEANING_FOR = new Set(["not_in_dictionary", "not_on_board", "too_short"]);
// The common words everyone missed show open up to this many (else folded, like the rare).
const OPEN_MISSED_UP_TO = 40;
// Rows made so far: each row's fields get ids of their own.
let rowsMade = 0;

/** A check's answer in the shape of a room's results (docs/api.md, "Results"), for
 * room/words-list.js to draw: players with their accepted and refused words, and the
 * board's every word with who wrote it. `totals(name)` gives a player's evening total. */
function asResults(answer, number, totals) {
  const solution = new Map();
  const players = answer.players.map((player) => {
    const accepted = player.words.filter((word) => word.verdict === "accepted");
    for (const word of accepted) {
      if (!solution.has(word.word)) solution.set(word.word, { word: word.word, points: word.points, path: word.path, found_by: [] });
      const entry = solution.get(word.word);
      entry.points = Math.max(entry.points, word.points);
      if (!entry.found_by.includes(player.name)) entry.found_by.push(player.name);
    }
    return {
      id: player.name,
      nickname: player.name,
      round_points: player.points,
      total_points: totals(player.name),
      share_of_max: answer.max_points ? player.points / answer.max_points : 0,
      words_counted: accepted.filter((word) => !word.cancelled).length,
      words: accepted,
      // On paper a word written twice is "written twice" (the server's reason), not the
      // room's "you already have that word".
      rejected: player.words
        .filter((word) => word.verdict !== "accepted")
        .map((word) => ({ ...word, verdict: word.verdict === "already_entered" ? "written_twice" : word.verdict })),
    };
  });
  for (const word of answer.missed) solution.set(word.word, { ...word, found_by: [] });
  return {
    round: {
      number,
      board: answer.board.board,
      rows: answer.board.rows,
      cols: answer.board.columns,
      grid: answer.board.grid,
      dictionary: answer.dictionary,
      cancel_duplicates: answer.cancel_duplicates,
    },
    players,
    solution: [...solution.values()],
    word_count: answer.word_count,
    max_points: answer.max_points,
  };
}

export class Referee {
  /**
   * `el`: the form's parts and the results' boxes (see main.js). `board()`: the board to
   * check ({text, dictionary, minLength}) or null (the board card says what is missing);
   * `onChecked(answer)` after each check; `onNextBoard()`; `onEvening()` when the evening
   * changed (the address keeps it).
   */
  constructor(el, { pane, board, onChecked, onNextBoard, onEvening }) {
    this.el = el;
    this.pane = pane;
    this.board = board;
    this.onChecked = onChecked;
    this.onNextBoard = onNextBoard;
    this.onEvening = onEvening;
    this.evening = new Evening();
    this.current = null; // the evening's board the lists are for (null: a new board)
    // Chips say what a word was worth and who wrote it (room/words-list.js's detail).
    this.words = new PaneWords(el.results, pane);
    this.busy = false;
    this.paused = false; // results hidden while the board is changed
    el.add.addEventListener("click", () => {
      const player = this.addPlayer();
      player.name.focus();
    });
    el.paperForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.check();
    });
    el.cancel.addEventListener("change", () => {
      this.evening.cancel = el.cancel.checked;
      // The boards checked are scored again; lists being written for a new board stay.
      if (this.evening.boards.length) this.recheck({ show: this.current !== null });
    });
    el.share.addEventListener("click", () => this.share());
    this.addPlayer();
    this.addPlayer();
  }

  // ------------------------------------------------------------------ the players' lists

  get players() {
    return [...this.el.players.children];
  }

  /** A player's row: name, words, a count of them, and a button to take the row away. */
  addPlayer(name = "", words = "") {
    if (this.players.length >= MAX_PLAYERS) return null;
    rowsMade += 1;
    const nameId = `paper-name-${rowsMade}`;
    const wordsId = `${nameId}-words`;
    const nameInput = h("input", {
      type: "text",
      id: nameId,
      class: "paper-name",
      maxlength: NAME_MAX_LENGTH,
      autocomplete: "off",
      autocapitalize: "words",
      spellcheck: "false",
      value: name,
    });
    const wordsLabel = h("label", { for: wordsId });
    const count = h("span", { class: "paper-count hint", "aria-live": "off" });
    const textarea = h("textarea", {
      id: wordsId,
      class: "paper-words",
      rows: 4,
      autocapitalize: "none",
      autocomplete: "off",
      autocorrect: "off",
      spellcheck: "false",
      "aria-describedby": `${wordsId}-count`,
      placeholder: gettext("One word a line, or spaces between"),
    });
    textarea.value = words;
    count.id = `${wordsId}-count`;
    const remove = h("button", { type: "button", class: "button small subtle paper-remove" });
    const row = h(
      "li",
      { class: "paper-player" },
      h("div", { class: "field" }, h("label", { for: nameId, class: "paper-name-label" }), nameInput),
      h("div", { class: "field" }, wordsLabel, textarea, count),
      remove,
    );
    const player = { row, name: nameInput, words: textarea };
    row.player = player;
    const relabel = () => this.relabel();
    nameInput.addEventListener("input", relabel);
    textarea.addEventListener("input", () => this.countWords(player));
    remove.addEventListener("click", () => this.removePlayer(row));
    this.el.players.append(row);
    this.relabel();
    this.countWords(player);
    return player;
  }

  removePlayer(row) {
    if (this.players.length <= 1) return;
    const index = this.players.indexOf(row);
    row.remove();
    this.relabel();
    const next = this.players[Math.min(index, this.players.length - 1)];
    next.player.name.focus();
  }

  /** Labels follow the names ("Words by Ann"); the buttons follow the count of players. */
  relabel() {
    const rows = this.players;
    rows.forEach((row, index) => {
      const player = row.player;
      const name = this.nameOf(player, index);
      row.querySelector(".paper-name-label").textContent = gettext("Player %(number)s", { number: index + 1 });
      row.querySelector(`label[for="${player.words.id}"]`).textContent = gettext("Words by %(name)s", { name });
      const remove = row.querySelector(".paper-remove");
      remove.hidden = rows.length <= 1;
      remove.textContent = gettext("Remove %(name)s", { name });
    });
    this.el.add.disabled = rows.length >= MAX_PLAYERS;
    this.el.add.textContent = rows.length >= MAX_PLAYERS
      ? gettext("12 players at most")
      : gettext("Add a player");
  }

  nameOf(player, index) {
    return player.name.value.trim().replace(/\s+/g, " ") || gettext("Player %(number)s", { number: index + 1 });
  }

  countWords(player) {
    const count = listWords(player.words.value).length;
    const counter = player.row.querySelector(".paper-count");
    counter.textContent = count ? wordsText(count) : "";
  }

  /** The lists as the API takes them, or null after saying what is wrong. */
  lists() {
    const lists = this.players.map((row, index) => ({ name: this.nameOf(row.player, index), words: listWords(row.player.words.value), row }));
    if (lists.every((list) => !list.words.length)) {
      this.setError(gettext("Write down the words of at least one player."));
      lists[0].row.player.words.focus();
      return null;
    }
    const seen = new Map();
    for (const list of lists) {
      const key = nameKey(list.name);
      if (seen.has(key)) {
        this.setError(gettext("Two players are called %(name)s: tell them apart.", { name: list.name }));
        list.row.player.name.focus();
        return null;
      }
      seen.set(key, list);
      if (list.words.length > MAX_WORDS) {
        this.setError(gettext("A list holds %(count)s words at most; %(name)s's has %(given)s.", { count: MAX_WORDS, name: list.name, given: list.words.length }));
        list.row.player.words.focus();
        return null;
      }
    }
    return lists.map(({ name, words }) => ({ name, words }));
  }

  /** The first name or list still empty (else the button that checks them) takes the focus. */
  focusLists() {
    const fields = this.players.flatMap((row) => [row.player.name, row.player.words]);
    (fields.find((field) => !field.value.trim()) || this.el.submit).focus();
  }

  /** Fill the rows with `players` ({name, words}); `withWords` false keeps only the names. */
  setPlayers(players, withWords = true) {
    this.el.players.replaceChildren();
    for (const player of players.slice(0, MAX_PLAYERS)) this.addPlayer(player.name, withWords ? player.words.join("\n") : "");
    if (!this.players.length) this.addPlayer();
  }

  // ------------------------------------------------------------------ checking

  async check() {
    if (this.busy) return;
    this.setError("");
    const lists = this.lists();
    if (!lists) return;
    const board = this.board();
    if (!board) return;
    const evening = this.evening;
    const entry = { board: board.text, players: lists, answer: null };
    // These lists replace the board's being corrected, or are the evening's next board.
    const index = this.current === null ? evening.boards.length : this.current;
    const others = evening.boards.filter((_, at) => at !== index).length;
    const settings = { dictionary: board.dictionary, minLength: board.minLength, cancel: evening.cancel };
    if (others && (evening.dictionary !== settings.dictionary || evening.minLength !== settings.minLength)) {
      // The evening's boards play by one dictionary and rule: a change checks them all again.
      Object.assign(evening, { dictionary: settings.dictionary, minLength: settings.minLength });
      evening.boards[index] = entry;
      this.current = index;
      await this.recheck();
      return;
    }
    this.setBusy(gettext("Checking the lists…"));
    try {
      entry.answer = await this.ask(entry, settings);
    } catch (error) {
      // The evening stays as it was.
      this.setBusy("");
      this.setError(error instanceof ApiError ? error.message : gettext("Something went wrong. Please try again."));
      return;
    }
    Object.assign(evening, { dictionary: settings.dictionary, minLength: settings.minLength });
    evening.boards[index] = entry;
    this.current = index;
    this.setBusy("");
    this.show(index);
    this.onEvening();
  }

  /** POST /api/solve/check for a board's lists, by the evening's settings or `settings`. */
  ask(entry, settings = this.evening) {
    const body = {
      board: entry.board,
      dictionary: settings.dictionary,
      cancel_duplicates: settings.cancel,
      players: entry.players,
    };
    if (settings.minLength) body.min_length = settings.minLength;
    return postJSON("/api/solve/check", body);
  }

  /** Check every board of the evening again (a link opened, the rule changed) and, with
   * `show`, the last board's lists. Boards the server refuses are left out, saying so. */
  async recheck({ show = true } = {}) {
    const boards = this.evening.boards;
    const refused = [];
    for (let index = 0; index < boards.length; index += 1) {
      this.setBusy(gettext("Checking board %(number)s of %(count)s…", { number: index + 1, count: boards.length }));
      try {
        boards[index].answer = await this.ask(boards[index]);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code === "network" || error.status >= 500 || error.status === 429) {
          this.setBusy("");
          this.setError(error instanceof ApiError ? error.message : gettext("Something went wrong. Please try again."));
          return false;
        }
        refused.push(gettext("Board %(number)s: %(reason)s", { number: index + 1, reason: error.message }));
        boards[index].answer = null;
      }
    }
    this.evening.boards = boards.filter((entry) => entry.answer);
    this.setBusy("");
    if (refused.length) this.setError(refused.join(" "));
    if (!this.evening.boards.length) {
      this.current = null;
      this.drawEvening();
      return false;
    }
    if (show) {
      this.current = this.evening.boards.length - 1;
      this.show(this.current);
    } else {
      this.drawEvening();
    }
    this.onEvening();
    return true;
  }

  /** An evening from a link (evening.js decodeEvening): checked again, then shown. */
  async restore(data) {
    this.evening.dictionary = data.dictionary;
    this.evening.minLength = data.minLength;
    this.evening.cancel = data.cancel;
    this.el.cancel.checked = data.cancel;
    this.evening.boards = data.boards.map((entry) => ({ board: entry.board, players: entry.players, answer: null }));
    if (!this.evening.boards.length) return false;
    this.setPlayers(this.evening.boards[this.evening.boards.length - 1].players);
    return this.recheck();
  }

  // ------------------------------------------------------------------ the results

  /** Show board `index`'s check: scores, lists, the words everyone missed. */
  show(index) {
    this.paused = false;
    const entry = this.evening.boards[index];
    const answer = entry.answer;
    const results = asResults(answer, index + 1, (name) => this.evening.total(name));
    this.words.results = results;
    this.onChecked(answer);
    const missed = results.solution
      .filter((word) => !word.found_by.length && word.common !== false)
      .sort((a, b) => b.points - a.points || a.word.localeCompare(b.word));
    const missedCount = answer.missed.length;
    const title = h("h2", { id: "paper-results-title", tabindex: "-1", text: gettext("Board %(number)s checked", { number: index + 1 }) });
    this.el.results.replaceChildren(
      h(
        "div",
        { class: "card paper-results-head" },
        title,
        h("p", {
          class: "hint",
          text: gettext("The board had %(words)s worth %(points)s.", { words: wordsText(answer.word_count), points: pointsText(answer.max_points) }),
        }),
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: "button primary", id: "next-board", text: gettext("Next board"), on: { click: () => this.nextBoard() } }),
          h("button", { type: "button", class: "button", id: "edit-lists", text: gettext("Change the lists"), on: { click: () => this.editLists() } }),
        ),
      ),
      this.words.scoreboard(results),
      this.words.playersWords(results, {
        refusedExtras: (_player, word) => (MEANING_FOR.has(word.verdict) ? [meaningButton(word.word, answer.dictionary, { compact: true })] : []),
      }),
      h(
        "section",
        { class: "card paper-missed", "aria-labelledby": "paper-missed-title" },
        h("h2", { id: "paper-missed-title", text: gettext("Words you all missed (%(count)s)", { count: missedCount }) }),
        missedCount ? null : h("p", { class: "hint", text: gettext("Not one: you found every word on the board!") }),
        missed.length ? this.missedList(missed) : null,
        this.words.rareWords(results),
      ),
    );
    this.el.form.hidden = true;
    this.el.results.hidden = false;
    this.drawEvening();
    title.focus({ preventScroll: true });
    title.scrollIntoView({ block: "start" });
  }

  /** The common words everyone missed: chips lighting their paths, folded when many. */
  missedList(missed) {
    const chips = h("ul", { class: "chips" }, ...missed.map((word) => this.words.chip(word.word, word.path, { kind: "missed", note: `+${word.points}` })));
    if (missed.length <= OPEN_MISSED_UP_TO) return chips;
    return h(
      "details",
      { class: "missed-common" },
      h("summary", {}, ngettext("%(count)s common word", "%(count)s common words", missed.length)),
      chips,
    );
  }

  /** The lists again, to correct them; checking replaces this board's. */
  editLists() {
    this.el.results.hidden = true;
    this.el.form.hidden = false;
    const entry = this.current !== null ? this.evening.boards[this.current] : null;
    if (entry) this.setPlayers(entry.players);
    const first = this.players[0];
    if (first) first.player.words.focus();
  }

  /** The board is being changed: its lists show, to be checked again (or not: resume). */
  pauseResults() {
    if (this.el.results.hidden) return;
    this.paused = true;
    this.el.results.hidden = true;
    this.el.form.hidden = false;
  }

  resumeResults() {
    if (!this.paused) return;
    this.paused = false;
    if (this.current === null) return;
    this.el.form.hidden = true;
    this.el.results.hidden = false;
  }

  /** The next board: the same players with empty lists; the board is typed anew. */
  nextBoard() {
    const entry = this.current !== null ? this.evening.boards[this.current] : null;
    if (entry) this.setPlayers(entry.players, false);
    this.current = null;
    this.el.results.hidden = true;
    this.el.results.replaceChildren();
    this.el.form.hidden = false;
    this.onNextBoard();
  }

  drawEvening() {
    const boards = this.evening.boards.filter((entry) => entry.answer);
    this.el.evening.hidden = !boards.length;
    if (!boards.length) return;
    this.el.eveningTitle.textContent = ngettext("Totals after %(count)s board", "Totals after %(count)s boards", boards.length);
    this.el.eveningTable.replaceChildren(totalsTable(this.evening));
  }

  /** The evening's link: /solve/#paper=… */
  async link() {
    return `${window.location.origin}/solve/${PAPER_PREFIX}${await encodeEvening(this.evening)}`;
  }

  /** The hash that keeps the evening in the address, or "" with none checked. */
  async hash() {
    return this.evening.boards.some((entry) => entry.answer) ? `${PAPER_PREFIX}${await encodeEvening(this.evening)}` : "";
  }

  async share() {
    const url = await this.link();
    if (typeof navigator.share === "function") {
      try {
        await navigator.share({ title: gettext("Our Boggle evening"), url });
        return;
      } catch (failure) {
        if (failure && failure.name === "AbortError") return;
      }
    }
    const copied = await copyText(url);
    this.el.shareStatus.textContent = copied ? gettext("Link copied ✓") : gettext("Could not copy: press and hold the link to copy it");
    this.el.shareLink.value = url;
    this.el.shareLink.hidden = copied;
  }

  // ------------------------------------------------------------------ status

  setBusy(text) {
    this.busy = Boolean(text);
    showText(this.el.status, text);
    this.el.submit.disabled = this.busy;
    this.el.panel.setAttribute("aria-busy", this.busy ? "true" : "false");
  }

  setError(text) {
    showText(this.el.error, text);
  }
}
