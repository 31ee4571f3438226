// Small DOM helpers: build elements without HTML strings (no escaping mistakes).

/**
 * Create an element. `attrs` keys: `class`, `text`, `dataset` (object), `on` (object of
 * event name to handler), `hidden`/`disabled`/`checked`/`selected`/`open` (booleans),
 * anything else is set as an attribute (null/undefined/false skip it).
 */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (key === "on") {
      for (const [event, handler] of Object.entries(value)) element.addEventListener(event, handler);
    } else if (["hidden", "disabled", "checked", "selected", "open", "value"].includes(key)) {
      element[key] = value;
    } else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Create an SVG element with attributes. */
export function svg(tag, attrs = {}) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  return element;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** Say something to screen-reader users through the page's polite live region. */
export function announce(message) {
  const region = document.getElementById("live");
  if (!region) return;
  // Clearing first makes a repeated message ("not on the board" twice) be read again.
  region.textContent = "";
  window.setTimeout(() => {
    region.textContent = message;
  }, 50);
}

/** True on devices whose main pointer is a finger (no hover, coarse): phones, tablets. */
export function isTouchFirst() {
  return window.matchMedia("(hover: none) and (pointer: coarse)").matches;
}

/** Show `text` in a status or error line, hidden while there is none. */
export function showText(element, text) {
  element.textContent = text || "";
  element.hidden = !text;
}
