// Sharing one ended round: its picture (a PNG the server draws, shared as a file through the
// phone's share sheet, or opened where files cannot be shared) and the link to its
// read-only results page (copied).

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { copyText, joinLink } from "./share.js";

/** The read-only results page of round `number`, as other devices reach it. */
export function roundLink(code, number) {
  return `${joinLink(code).replace(/\/?$/, "/")}rounds/${number}/`;
}

/** The round's picture on this server (same origin: fetch may read it). */
export function pictureUrl(code, number) {
  return `/api/rooms/${code}/rounds/${number}.png`;
}

async function sharePicture(code, number, status) {
  const url = pictureUrl(code, number);
  if (typeof navigator.share === "function" && typeof navigator.canShare === "function") {
    try {
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const blob = await response.blob();
      const file = new File([blob], `boggle-${code}-round-${number}.png`, { type: "image/png" });
      if (navigator.canShare({ files: [file] })) {
        await navigator.share({ files: [file], title: gettext("Boggle round %(number)s", { number }) });
        return;
      }
    } catch (failure) {
      if (failure && failure.name === "AbortError") return; // the player closed the sheet
    }
  }
  // No sharing of files here (most desktops): show the picture, to save or copy.
  const opened = window.open(url, "_blank", "noopener");
  if (!opened) window.location.assign(url);
  status.textContent = "";
}

/** "Share picture" and "Copy link" for round `number` of room `code`, with a status line. */
export function shareRoundButtons(code, number) {
  const status = h("p", { class: "hint share-round-status", role: "status" });
  const picture = h("button", {
    type: "button",
    class: "button share-picture",
    text: gettext("Share picture"),
    on: { click: () => sharePicture(code, number, status) },
  });
  const link = h("button", {
    type: "button",
    class: "button copy-round-link",
    text: gettext("Copy link"),
    "aria-describedby": `share-round-hint-${number}`,
    on: {
      click: async () => {
        const copied = await copyText(roundLink(code, number));
        status.textContent = copied ? gettext("Link to these results copied ✓") : gettext("Could not copy the link");
      },
    },
  });
  const hint = h("span", {
    id: `share-round-hint-${number}`,
    class: "visually-hidden",
    text: gettext("A link to a page with this round's results, for anyone"),
  });
  return h("div", { class: "share-round" }, h("div", { class: "share-round-buttons" }, picture, link), hint, status);
}
