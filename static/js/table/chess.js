// The table screen during a chess-clock round (docs/api.md, "Chess clock"): whose turn it
// is, in big, and every player's clock, the running one highlighted; the screen's timer
// shows the running clock. The phones' view of the same is room/chess.js.

import { announce, h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { ChessClocks, isChess, showRunningClock, turnText } from "../room/chess.js";

export class TableChess {
  /** `before`: the element the box goes before; `timer`: the screen's timer elements. */
  constructor({ before, timer }, { store }) {
    this.store = store;
    this.timer = timer;
    this.turnLine = h("p", { class: "table-chess-turn", id: "table-chess-turn" });
    this.clocks = new ChessClocks({ className: "table-chess-clocks" });
    this.element = h(
      "section",
      { class: "table-chess", id: "table-chess", "aria-labelledby": "table-chess-title", hidden: true },
      h("h2", { class: "table-counts-title", id: "table-chess-title", text: gettext("Clocks") }),
      this.turnLine,
      this.clocks.element,
    );
    before.before(this.element);
    this.spoken = null;
  }

  get chess() {
    const round = this.store.round;
    return isChess(round) && round.status === "running" ? round.chess : null;
  }

  nickname(id) {
    return this.store.nickname(id);
  }

  /** Several times a second (and on every change): the clocks and whose turn it is. */
  tick(now) {
    const chess = this.chess;
    this.element.hidden = !chess;
    if (!chess) return;
    const nickname = (id) => this.nickname(id);
    this.clocks.render(chess, now, { nickname });
    const line = turnText(chess, null, nickname);
    if (this.turnLine.textContent !== line) this.turnLine.textContent = line;
    // Whose turn, said once per move, for a screen reader at the table.
    const key = JSON.stringify([chess.turn, chess.winner, chess.players.length]);
    if (key !== this.spoken) {
      this.spoken = key;
      if (chess.players.length) announce(line);
    }
    // Until the clocks start, the screen's timer counts the countdown down.
    if (chess.players.length) showRunningClock(this.timer, chess, now, (id) => gettext("%(nickname)s's clock", { nickname: nickname(id) }));
  }
}
