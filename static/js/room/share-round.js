// Sharing one ended round: its picture (a PNG the server draws, shared as a file through the
// phone's share sheet, or opened in a new tab, or saved, where files cannot be shared) and
// the link to its read-only results page (copied). The room page itself never navigates.

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
  const filename = `boggle-${code}-round-${number}.png`;
  if (typeof navigator.share === "function" && typeof navigator.canShare === "function") {
    try {
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const blob = await response.blob();
      const file = new File([blob], filename, { type: "image/png" });
      if (navigator.canShare({ files: [file] })) {
        await navigator.share({ files: [file], title: gettext("Boggle round %(number)s", { number }) });
        return;
      }
    } catch (failure) {
      if (failure && failure.name === "AbortError") return; // the player closed the sheet
    }
  }
  // No sharing of files here (most desktops): show the picture in a new tab, to save or
  // copy. Never in this tab: leaving the room page would close this player's socket.
  status.textContent = "";
  // Without "noopener", so that a blocked pop-up shows as null (with it, null is all one
  // ever gets); the new tab is cut off from this page at once.
  const opened = window.open(url, "_blank");
  if (opened) {
    opened.opener = null;
    return;
  }
  // Pop-ups blocked: save the file instead.
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  status.textContent = gettext("The picture was saved to your downloads.");
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
