// The room as this page knows it: the server's state, kept current by room events, plus
// what only this page knows (unanswered words, the connection, why play stopped).
//
// Events are applied idempotently (players by id, round and results whole), so one that
// arrives twice or after a sync does no harm. Views subscribe and redraw what changed.

import { gettext } from "../lib/i18n.js";
import { addMyWord, emptyTeam, isCoop, mergeTeam } from "./team.js";
import { withResultTotals } from "./teams.js";

const STATUS_ORDER = { preparing: 0, running: 1, ended: 2 };

/**
 * The results as far as `round.ended` tells them (docs/api.md): everyone's scores, and my
 * words (`mine`, null for a table screen); everyone else's words and the board's solution
 * are asked for after (`complete: false` until then: RoomLink asks).
 */
function firstResults(event, you) {
  const none = { words: [], rejected: [] };
  return {
    ...event.scores,
    players: event.scores.players.map((entry) => ({ ...entry, ...(entry.id === you && event.mine ? event.mine : none) })),
    solution: [],
    challenges: [],
    complete: false,
  };
}

export class RoomStore {
  constructor(state) {
    this.listeners = [];
    this.connection = { status: "connecting" };
    this.gone = null; // {reason, message}: kicked, removed, room deleted
    this.joinRequest = null; // this newcomer's request at a locked room, while it waits
    this.lastVerdict = null;
    this.words = [];
    this.replace(state);
  }

  subscribe(listener) {
    this.listeners.push(listener);
  }

  notify(...parts) {
    const changed = new Set(parts);
    for (const listener of this.listeners) listener(this, changed);
  }

  // ------------------------------------------------------------------ reading

  get you() {
    return this.state.you;
  }

  /** Whether I may run the room: its host, unless it is a quick-play room, which runs itself. */
  get isHost() {
    return !this.state.public && this.state.you !== null && this.state.you === this.state.host_id;
  }

  get round() {
    return this.state.round;
  }

  /** What the page shows: join, waiting (for the host's yes), lobby, play, results, or gone. */
  get phase() {
    if (this.gone) return "gone";
    if (this.state.you === null || this.state.you === undefined) return this.joinRequest ? "waiting" : "join";
    const round = this.state.round;
    if (!round) return "lobby";
    return round.status === "ended" ? "results" : "play";
  }

  player(id) {
    return this.state.players.find((player) => player.id === id) || null;
  }

  nickname(id) {
    const player = this.player(id);
    if (player) return player.nickname;
    const results = this.state.results;
    const ranked = results && results.players.find((entry) => entry.id === id);
    return ranked ? ranked.nickname : gettext("someone");
  }

  // ------------------------------------------------------------------ changing

  /** A full state from the server (first message, sync, or an HTTP answer). */
  replace(state) {
    const previousRound = this.state && this.state.round ? this.state.round.number : null;
    this.state = { ...state, players: [...state.players] };
    // A co-op round's team (team.js): the server's, else (an older server, a round still
    // preparing) an empty one that the round's frames fill.
    if (isCoop(state.round) && state.round.status !== "ended") this.state.team = state.team || emptyTeam(state.round);
    this.version = state.version || 0;
    this.countsAt = 0; // the state's counts are the newest so far
    const roundNumber = state.round ? state.round.number : null;
    const pending = roundNumber === previousRound ? this.words.filter((word) => word.pending) : [];
    this.words = (state.my_words || []).map((word) => ({ ...word, pending: false }));
    const known = new Set(this.words.map((word) => word.client_id));
    for (const word of pending) if (!known.has(word.client_id)) this.words.push(word);
    this.notify("all");
  }

  /**
   * A room event. Returns "stale" (already applied), "applied", or "gap" (applied, but
   * events were missed before it: the caller asks for a sync).
   */
  applyEvent(event) {
    if (typeof event.version === "number") {
      if (event.version <= this.version) return "stale";
      const gap = event.version > this.version + 1;
      this.version = event.version;
      this.apply(event);
      return gap ? "gap" : "applied";
    }
    this.apply(event);
    return "applied";
  }

  apply(event) {
    const state = this.state;
    switch (event.type) {
      case "player.joined":
        this.setKicked((state.kicked || []).filter((item) => item.id !== event.player.id));
        {
          // A player coming back (left, or let back in after a kick) may still be listed
          // here: take the server's entry whole, points included.
          const known = this.player(event.player.id);
          if (known) Object.assign(known, event.player);
          else state.players.push({ total_points: 0, ...event.player });
        }
        this.notify("players");
        break;
      case "player.left":
        if (event.kicked && !(state.kicked || []).some((item) => item.id === event.player_id)) {
          this.setKicked([...(state.kicked || []), { id: event.player_id, nickname: this.nickname(event.player_id) }]);
        }
        state.players = state.players.filter((player) => player.id !== event.player_id);
        this.notify("players");
        break;
      case "player.allowed_back":
        this.setKicked((state.kicked || []).filter((item) => item.id !== event.player_id));
        this.notify("players");
        break;
      case "player.team": {
        // Teams mode: a player picked a team, the host moved them, or the server placed them.
        const player = this.player(event.player_id);
        if (player) player.team = event.team;
        this.notify("players", "teams");
        break;
      }
      case "player.online": {
        const player = this.player(event.player_id);
        if (player) player.online = event.online;
        this.notify("players");
        break;
      }
      case "room.locked":
        state.locked = event.locked;
        this.notify("lock");
        break;
      case "join.requested": {
        const waiting = (state.waiting || []).filter((item) => item.id !== event.join_request.id);
        state.waiting = [...waiting, event.join_request];
        this.notify("waiting");
        break;
      }
      case "join.decided":
        state.waiting = (state.waiting || []).filter((item) => item.id !== event.join_request_id);
        this.notify("waiting");
        break;
      case "host.changed":
        state.host_id = event.host_id;
        for (const player of state.players) player.is_host = player.id === event.host_id;
        this.notify("players", "host");
        break;
      case "settings.changed":
        state.settings = event.settings;
        this.notify("settings");
        break;
      case "photo_set.changed":
        state.photo_set = event.photo_set;
        this.notify("photo_set");
        break;
      case "round.preparing":
      case "round.ready_check":
      case "round.started":
      case "round.time_up": // a paper round's writing stopped by the host (paper.js)
        this.setRound(event.round);
        break;
      case "round.ready":
        this.setReady(event);
        break;
      case "chess.turn": // a chess round's clock moved (chess.js)
        this.setChess(event);
        break;
      case "round.counts": {
        if (!state.round || state.round.status !== "running") break; // late: the round is over
        const changed = [];
        // Whole snapshots without a version: the newest wins (a room spread over two server
        // processes may get one from each, crossing).
        if (!(event.counted_at < this.countsAt)) {
          this.countsAt = event.counted_at || 0;
          state.counts = event.counts;
          changed.push("counts");
        }
        // A co-op round's new words are news, not a snapshot: every frame's are merged.
        if (event.team && isCoop(state.round)) {
          state.team = mergeTeam(state.team, event.team);
          changed.push("team");
        }
        if (changed.length) this.notify(...changed);
        break;
      }
      case "round.ended":
        this.endRound(firstResults(event, this.you));
        break;
      case "challenge.opened":
      case "challenge.voted":
      case "challenge.ruled":
        this.putChallenge(event.challenge);
        break;
      case "round.rescored":
        this.rescore(event.results);
        break;
      case "game.ended":
        this.endGame(event.standing);
        break;
      case "game.started":
        this.newGame(event.game);
        break;
      default:
        break;
    }
  }

  setRound(round) {
    const state = this.state;
    const current = state.round;
    if (current && round.number < current.number) return;
    const isNew = !current || round.number !== current.number;
    // Events from different server processes may cross: never step a round back.
    if (!isNew && STATUS_ORDER[round.status] < STATUS_ORDER[current.status]) return;
    state.round = round;
    if (isNew) {
      state.counts = {};
      this.countsAt = 0;
      state.team = isCoop(round) ? emptyTeam(round) : null;
      state.results = null;
      if (state.settings) state.settings = { ...state.settings, next_board: null };
      this.words = [];
      this.lastVerdict = null;
    } else if (isCoop(round) && state.team && state.team.total === null && round.word_counts) {
      // Solved since it was announced: the board's count is known now.
      state.team = { ...state.team, total: emptyTeam(round).total };
    }
    this.notify("round", "words", "counts", "team");
  }

  /** A chess round's clocks after a move (`chess.turn`): kept in the round, with the move
   * (why: start, played, flag, skip; who; the word) for the views to tell. */
  setChess(event) {
    const round = this.state.round;
    if (!round || round.number !== event.round_number || round.status !== "running") return;
    this.state.round = { ...round, chess: event.chess };
    this.chessMove = { reason: event.reason, player_id: event.player_id, word: event.word };
    this.notify("chess");
  }

  /** Who is ready and who is waited for (`round.ready`), while the round waits for them. */
  setReady(event) {
    const round = this.state.round;
    if (!round || round.number !== event.round_number || round.status !== "preparing" || !round.ready_check) return;
    this.state.round = { ...round, ready_check: { ready: event.ready || [], waiting: event.waiting || [] } };
    this.notify("ready");
  }

  endRound(results) {
    const state = this.state;
    if (state.round && results.round.number < state.round.number) return;
    state.round = results.round;
    state.results = results;
    state.counts = {};
    for (const entry of results.players) {
      const player = this.player(entry.id);
      if (player) player.total_points = entry.total_points;
    }
    // Teams mode: each team's total through this round (teams.js).
    if (results.teams) state.teams = withResultTotals(state.teams, results.teams);
    this.notify("round", "results", "players");
  }

  /** Whether the shown results are still only the scores and my words of round `number`
   * (`round.ended`), the rest to be read from the server. */
  awaitsResults(number) {
    const results = this.state.results;
    return Boolean(results && results.complete === false && results.round.number === number);
  }

  /** The whole results of the round `round.ended` began to show (the `results` answer). */
  completeResults(results) {
    if (!this.awaitsResults(results.round.number)) return; // a sync or rescore came first
    // Challenges opened while the answer was on its way stay (never stepped back).
    const known = this.state.results.challenges;
    this.endRound(results);
    for (const challenge of known) this.putChallenge(challenge);
  }

  setKicked(kicked) {
    this.state.kicked = kicked;
  }

  /** The host ended the game: the final standing (from `game.ended` or the `end_game` answer). */
  endGame(standing) {
    if (!standing || this.state.standing) return;
    this.state.standing = standing;
    // A new results object: the results view redraws (no more challenges or votes).
    if (this.state.results) this.state.results = { ...this.state.results };
    this.notify("standing", "results");
  }

  /**
   * The host started a new game in this room (`game.started` or the `new_game` answer): back
   * to the lobby, no standing, every total from zero; the players stay.
   */
  newGame(game) {
    const state = this.state;
    if (typeof game !== "number" || (state.game || 1) >= game) return;
    state.game = game;
    state.standing = null;
    state.round = null;
    state.results = null;
    state.counts = {};
    state.team = null;
    for (const player of state.players) player.total_points = 0;
    if (state.teams) state.teams = state.teams.map((entry) => ({ ...entry, total_points: 0 }));
    this.words = [];
    this.lastVerdict = null;
    this.notify("all");
  }

  /** A challenge, new, voted on or ruled: kept in the shown results when it is about their round. */
  putChallenge(challenge) {
    const results = this.state.results;
    if (!challenge || !results || results.round.number !== challenge.round_number) return;
    const challenges = [...(results.challenges || [])];
    const index = challenges.findIndex((item) => item.id === challenge.id);
    if (index >= 0) {
      // Never step a ruling back to pending (events and answers may cross).
      if (challenges[index].status !== "pending" && challenge.status === "pending") return;
      // Nor step the votes back: who has voted only grows while it is pending.
      const before = challenges[index].votes;
      if (before && challenge.votes && challenge.status === "pending" && challenge.votes.voted.length < before.voted.length) return;
      challenges[index] = challenge;
    } else {
      challenges.push(challenge);
    }
    // A new results object: the results view redraws when it changes.
    this.state.results = { ...results, challenges };
    this.notify("results");
  }

  /** A round scored again after an accepted challenge: new results, new running totals. */
  rescore(results) {
    const state = this.state;
    const shown = state.results;
    if (shown && shown.round.number === results.round.number) {
      state.results = results;
      if (state.round && state.round.number === results.round.number) state.round = results.round;
    }
    // The round rescored may be an older one: the running totals change either way
    // only when it is the latest ended round (its totals include every round before).
    if (state.round && state.round.number === results.round.number) {
      for (const entry of results.players) {
        const player = this.player(entry.id);
        if (player) player.total_points = entry.total_points;
      }
      if (results.teams) state.teams = withResultTotals(state.teams, results.teams);
    }
    this.notify("results", "players");
  }

  addPending(entry) {
    this.words.push({ word: entry.word, client_id: entry.client_id, verdict: "pending", pending: true });
    this.notify("words");
  }

  /** The server's answer to one of our entries. */
  verdict(message) {
    const entry = this.putWord(message);
    this.lastVerdict = { ...entry, at: Date.now() };
    this.notify("words", "verdict", ...this.teamTakes(entry));
  }

  /** An entry made in another tab of mine (`my_word`): listed, without this tab's flash. */
  myWord(message) {
    const entry = this.putWord(message);
    this.notify("words", ...this.teamTakes(entry));
  }

  /** In a co-op round my accepted word joins the team's words at once (the next
   * `round.counts` frame brings it too). Returns the parts changed. */
  teamTakes(entry) {
    const state = this.state;
    if (!entry.accepted || !isCoop(state.round) || !state.team) return [];
    state.team = addMyWord(state.team, entry.word, this.you);
    return ["team"];
  }

  /** A judged entry (`verdict` or `my_word`), in place of its pending one; returns it. */
  putWord(message) {
    const entry = {
      word: message.word,
      client_id: message.client_id,
      verdict: message.verdict,
      accepted: message.accepted,
      reason: message.reason,
      common: message.common,
      pending: false,
    };
    const index = this.words.findIndex((word) => message.client_id && word.client_id === message.client_id);
    if (index >= 0) this.words[index] = entry;
    else this.words.push(entry);
    return entry;
  }

  /** An entry the server refused with an error (wrong time, bad input): show it refused. */
  refuse(clientId, message) {
    const index = this.words.findIndex((word) => word.client_id === clientId);
    const word = index >= 0 ? this.words[index].word : "";
    const entry = { word, client_id: clientId, verdict: "error", accepted: false, reason: message, pending: false };
    if (index >= 0) this.words[index] = entry;
    this.lastVerdict = { ...entry, at: Date.now() };
    this.notify("words", "verdict");
  }

  markWaiting(clientId, waiting) {
    const word = this.words.find((entry) => entry.client_id === clientId);
    if (word) {
      word.waiting = waiting;
      this.notify("words");
    }
  }

  setConnection(status, detail = {}) {
    this.connection = { status, ...detail };
    this.notify("connection");
  }

  /** This newcomer asked to join a locked room (null: no longer waiting). */
  setJoinRequest(joinRequest) {
    this.joinRequest = joinRequest;
    this.notify("all");
  }

  setGone(reason, message) {
    this.gone = { reason, message };
    this.notify("all");
  }
}
