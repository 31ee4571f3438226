// The start page: create a room (one click after a nickname) or go to a room by its code.
// The dictionary fields come filled by the server: every dictionary a room may choose, the
// page's language's chosen where one is installed.

import { ApiError, postJSON } from "./lib/api.js";
import { $ } from "./lib/dom.js";
import { gettext } from "./lib/i18n.js";
import { load, save, NICKNAME_KEY } from "./lib/storage.js";
import "./daily.js"; // the Daily board and Practice alone cards
import "./quickplay.js"; // the Play now card

const createForm = $("#create-form");
const nickname = $("#create-nickname");
const createError = $("#create-error");
const joinForm = $("#join-code-form");
const joinError = $("#join-error");

function showError(element, message) {
  element.textContent = message;
  element.hidden = !message;
}

createForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = nickname.value.trim();
  if (!name) {
    showError(createError, gettext("Pick a nickname first."));
    nickname.focus();
    return;
  }
  const data = new FormData(createForm);
  const seconds = data.get("round_seconds");
  const settings = {
    board_size: data.get("board_size"),
    round_seconds: seconds ? Number(seconds) : null,
    dictionary: data.get("dictionary"),
  };
  const button = createForm.querySelector("button[type=submit]");
  button.disabled = true;
  button.textContent = gettext("Creating…");
  showError(createError, "");
  try {
    const { room } = await postJSON("/api/rooms", { nickname: name, settings });
    save(NICKNAME_KEY, name);
    window.location.assign(`/r/${room.code}/`);
  } catch (error) {
    showError(createError, error instanceof ApiError ? error.message : gettext("Something went wrong. Please try again."));
    button.disabled = false;
    button.textContent = gettext("Create room");
  }
});

/** A room code, from a code or from a pasted join link (…/r/<code>/). */
export function roomCodeFrom(text) {
  const value = text.trim();
  const link = value.match(/\/r\/([A-Za-z0-9]{1,16})\/?/);
  const code = link ? link[1] : value.replace(/[\s-]/g, "");
  return /^[A-Za-z0-9]{1,16}$/.test(code) ? code.toLowerCase() : null;
}

joinForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const code = roomCodeFrom($("#join-code").value);
  if (!code) {
    showError(joinError, gettext("A room code is letters and digits, like k7mqa2xp."));
    return;
  }
  window.location.assign(`/r/${code}/`);
});

nickname.value = load(NICKNAME_KEY, "") || "";
if (!window.matchMedia("(hover: none)").matches && !nickname.value) nickname.focus();
