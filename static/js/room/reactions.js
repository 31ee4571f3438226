// Reactions (docs/api.md, "Reactions"): the fixed emoji a player puts on a word of the
// results or on a player's score, and the quick phrases, as the room and its table screen
// show them for a few seconds. The server checks each one; nothing here is free text.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";

// The emoji, by the key the server takes, with what a screen reader says for each.
export const EMOJI = [
  { key: "like", emoji: "👍", label: () => gettext("Like") },
  { key: "wow", emoji: "😮", label: () => gettext("Wow") },
  { key: "haha", emoji: "😂", label: () => gettext("Funny") },
  { key: "fire", emoji: "🔥", label: () => gettext("On fire") },
  { key: "clap", emoji: "👏", label: () => gettext("Applause") },
  { key: "sad", emoji: "😢", label: () => gettext("Sad") },
];
const EMOJI_BY_KEY = new Map(EMOJI.map((item) => [item.key, item]));

export const PHRASES = {
  nice: () => gettext("Nice!"),
  one_more: () => gettext("One more?"),
  again: () => gettext("Again!"),
};

// How long a reaction stays on screen, and how many show at once (the oldest go first).
const SHOWN_MS = 4000;
const MAX_SHOWN = 4;

/** What a reaction says: "Ann 🔥 QUEST", "Ann 👏 Bob", "Bob: One more?". `nickname(id)`
 * names a player of the room. */
export function reactionText(event, nickname) {
  if (event.phrase) {
    const phrase = PHRASES[event.phrase];
    return phrase ? gettext("%(nickname)s: %(phrase)s", { nickname: event.nickname, phrase: phrase() }) : "";
  }
  const item = EMOJI_BY_KEY.get(event.emoji);
  if (!item) return "";
  const target = event.word ? event.word.toUpperCase() : gettext("%(nickname)s's score", { nickname: nickname(event.player_id) });
  return `${event.nickname} ${item.emoji} ${target}`;
}

/** A row of the emoji as buttons; `label(item)` names each button, `onPick(key)` sends it. */
export function emojiTray({ label, onPick, className = "" }) {
  return h(
    "div",
    { class: `emoji-tray ${className}`.trim(), role: "group", "aria-label": gettext("Reactions") },
    ...EMOJI.map((item) =>
      h("button", {
        type: "button",
        class: "emoji-button",
        dataset: { emoji: item.key },
        "aria-label": label(item),
        title: item.label(),
        text: item.emoji,
        on: { click: () => onPick(item.key) },
      }),
    ),
  );
}

/** The reactions on screen: each for a few seconds, the newest last. */
export class ReactionToasts {
  constructor(root, { nickname }) {
    this.root = root;
    this.nickname = nickname;
  }

  show(event) {
    const text = reactionText(event, this.nickname);
    if (!text) return;
    const toast = h("p", { class: "reaction-toast", text });
    this.root.append(toast);
    while (this.root.children.length > MAX_SHOWN) this.root.firstElementChild.remove();
    window.setTimeout(() => toast.remove(), SHOWN_MS);
  }
}
