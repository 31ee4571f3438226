// The start page's "Play now" card (docs/api.md, "Quick play"): join the queue under a
// public nickname, ask how the ticket stands once a second (the server fills rooms as
// players ask), and open the room once placed. "/?play=now" (after a quick-play game)
// joins again at once under the nickname last used.

import { ApiError, getJSON, postJSON } from "./lib/api.js";
import { $ } from "./lib/dom.js";
import { gettext, ngettext } from "./lib/i18n.js";
import { load, save, NICKNAME_KEY } from "./lib/storage.js";

const CHECK_EVERY_MS = 1000;

const form = $("#quick-form");
const nickname = $("#quick-nickname");
const error = $("#quick-error");
const waiting = $("#quick-waiting");
const status = $("#quick-status");
let timer = null;

function showError(message) {
  error.textContent = message;
  error.hidden = !message;
}

function showWaiting(ticket) {
  form.hidden = true;
  waiting.hidden = false;
  const seconds = Math.max(0, Math.round((Date.now() - ticket.joined_at) / 1000));
  status.textContent = `${ngettext("%(count)s player waiting.", "%(count)s players waiting.", ticket.waiting)} ${gettext("Looking for players… %(seconds)s s", { seconds })}`;
}

function stop(message = "") {
  window.clearTimeout(timer);
  timer = null;
  form.hidden = false;
  waiting.hidden = true;
  showError(message);
}

async function check() {
  try {
    const { ticket } = await getJSON("/api/quickplay");
    if (ticket.status === "placed") {
      status.textContent = gettext("Found a room: opening it…");
      window.location.assign(`/r/${ticket.room.code}/`);
      return;
    }
    showWaiting(ticket);
  } catch (failure) {
    if (failure instanceof ApiError && failure.code === "not_in_queue") {
      stop(gettext("You left the queue. Press Play now to join it again."));
      return;
    }
    // A lost answer: ask again (the ticket waits ten seconds for us).
  }
  timer = window.setTimeout(check, CHECK_EVERY_MS);
}

async function join() {
  const name = nickname.value.trim();
  if (!name) {
    showError(gettext("Pick a nickname first."));
    nickname.focus();
    return;
  }
  showError("");
  $("#quick-play").disabled = true;
  try {
    const { ticket } = await postJSON("/api/quickplay", { nickname: name });
    save(NICKNAME_KEY, name);
    showWaiting(ticket);
    timer = window.setTimeout(check, CHECK_EVERY_MS);
  } catch (failure) {
    showError(failure instanceof ApiError ? failure.message : gettext("Something went wrong. Please try again."));
  } finally {
    $("#quick-play").disabled = false;
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  join();
});

$("#quick-leave").addEventListener("click", async () => {
  window.clearTimeout(timer);
  try {
    await fetch("/api/quickplay", { method: "DELETE", credentials: "same-origin" });
  } finally {
    stop();
  }
});

nickname.value = load(NICKNAME_KEY, "") || "";
if (new URLSearchParams(window.location.search).get("play") === "now") {
  $("#quick-card").scrollIntoView({ block: "center" });
  if (nickname.value) join();
}
