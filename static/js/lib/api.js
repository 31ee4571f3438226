// The JSON HTTP API (docs/api.md). The browser is the player through its session cookie,
// which the POSTs set; fetch sends it on same-origin requests.

import { gettext } from "./i18n.js";

export class ApiError extends Error {
  constructor(code, message, status = 0) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

// A POST whose answer was lost is sent again this many times, with the same
// Idempotency-Key, so it is done once (docs/api.md, "Retrying a request").
const POST_RETRIES = 2;
const RETRY_DELAY_MS = 700;
// A 429 (a classroom behind one address joining at once) is waited out, as its
// Retry-After says, for this long in all; longer waits are shown as the error they are.
const MAX_THROTTLED_WAIT_S = 30;

function idempotencyKey() {
  const bytes = new Uint8Array(12);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function send(method, url, body, headers) {
  let throttledWait = 0;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await fetch(url, {
        method,
        credentials: "same-origin",
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const wait = Number(response.headers.get("Retry-After"));
      if (method === "POST" && response.status === 429 && wait > 0 && throttledWait + wait <= MAX_THROTTLED_WAIT_S) {
        throttledWait += wait;
        attempt -= 1; // not a lost answer: the same request, later
        await new Promise((resolve) => window.setTimeout(resolve, wait * 1000));
        continue;
      }
      // A proxy's 502/503/504: the request may or may not have been done; the key decides.
      if (method === "POST" && attempt < POST_RETRIES && [502, 503, 504].includes(response.status)) {
        throw new TypeError("gateway");
      }
      return response;
    } catch {
      if (method !== "POST" || attempt >= POST_RETRIES) {
        throw new ApiError("network", gettext("Could not reach the server. Check your connection and try again."));
      }
      await new Promise((resolve) => window.setTimeout(resolve, RETRY_DELAY_MS * (attempt + 1)));
    }
  }
}

async function request(method, url, body) {
  const headers = { Accept: "application/json", "Content-Type": "application/json" };
  if (method === "POST") headers["Idempotency-Key"] = idempotencyKey();
  const response = await send(method, url, body, headers);
  let data = null;
  try {
    data = await response.json();
  } catch {
    // Not JSON: a proxy error page or a server fault.
  }
  if (!response.ok) {
    const error = data && data.error;
    if (error && error.message) throw new ApiError(error.code, capitalise(error.message), response.status);
    throw new ApiError("http", gettext("The server answered %(status)s. Please try again.", { status: response.status }), response.status);
  }
  return data;
}

export const getJSON = (url) => request("GET", url);
export const postJSON = (url, body) => request("POST", url, body ?? {});

/** Server messages are lower-case sentence parts; pages show them as sentences. */
export function capitalise(text) {
  const value = String(text ?? "");
  return value ? value[0].toUpperCase() + value.slice(1) : value;
}
