// The JSON HTTP API (docs/api.md). The browser is the player through its session cookie,
// which the POSTs set; fetch sends it on same-origin requests.

export class ApiError extends Error {
  constructor(code, message, status = 0) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function request(method, url, body) {
  let response;
  try {
    response = await fetch(url, {
      method,
      credentials: "same-origin",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError("network", "Could not reach the server. Check your connection and try again.");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    // Not JSON: a proxy error page or a server fault.
  }
  if (!response.ok) {
    const error = data && data.error;
    if (error && error.message) throw new ApiError(error.code, capitalise(error.message), response.status);
    throw new ApiError("http", `The server answered ${response.status}. Please try again.`, response.status);
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
