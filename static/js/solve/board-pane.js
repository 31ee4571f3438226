// The solved board beside its words: the dice (room/board.js), and under them the word
// picked. Tapping a word lights its path (numbered dice and a line); tapping it again opens
// its meaning (room/definitions.js). The words of both tabs (words.js, referee.js) are
// chips made by room/words-list.js's RoundWords, whose picks come here.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { BoardView } from "../room/board.js";
import { meaningButton, showDefinition } from "../room/definitions.js";
import { RoundWords } from "../room/words-list.js";

const PROMPT = () => gettext("Pick a word to see it on the board.");
// Where the pane is a strip stuck to the top of a phone's screen, the meaning button is an
// icon (its name still says "What does … mean?").
const NARROW = "(max-width: 35.99rem)";

export class BoardPane {
  /** `box` holds the dice, `caption` says which word is lit. */
  constructor(box, caption) {
    this.board = new BoardView(box, { label: gettext("The board") });
    this.caption = caption;
    this.pressed = null;
    this.dictionary = null;
    this.caption.textContent = PROMPT();
  }

  /** Show `board` (GET /api/solve's `board`: {board, rows, columns, grid}) for `dictionary`. */
  show(board, dictionary) {
    this.dictionary = dictionary;
    this.board.setBoard({ number: 0, board: board.board, rows: board.rows, cols: board.columns, grid: board.grid });
    this.unpick();
  }

  /** No word lit. */
  unpick() {
    if (this.pressed) this.pressed.setAttribute("aria-pressed", "false");
    this.pressed = null;
    this.board.highlight([]);
    this.caption.textContent = PROMPT();
  }

  /** A chip tapped: light its word, or (tapped again) open the word's meaning. */
  pick(button, word, path, detail) {
    if (this.pressed === button && button.isConnected) {
      showDefinition(word, this.dictionary, button);
      return;
    }
    if (this.pressed) this.pressed.setAttribute("aria-pressed", "false");
    this.pressed = button;
    button.setAttribute("aria-pressed", "true");
    this.board.highlight(path || [], "show");
    this.caption.replaceChildren(
      h("strong", { class: "caption-word", text: word }),
      h("span", { text: ` · ${detail}` }),
      meaningButton(word, this.dictionary, { compact: window.matchMedia(NARROW).matches }),
      h("span", { class: "caption-tip", text: gettext("Tap the word again for its meaning.") }),
    );
  }
}

/** Chips (RoundWords.chip) whose picks go to a BoardPane; `detailOf(word)` says what a word
 * is worth for the screen reader and the caption (by default RoundWords' "found by"). */
export class PaneWords extends RoundWords {
  constructor(body, pane, detailOf = null) {
    super(body);
    this.pane = pane;
    this.detailOf = detailOf;
  }

  detail(word) {
    return this.detailOf ? this.detailOf(word) : super.detail(word);
  }

  select(button, word, path, detail) {
    this.pane.pick(button, word, path, detail);
  }
}
