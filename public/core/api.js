// The page's HTTP client. Every state-changing request carries
// `Content-Type: application/json` and a JSON body (`{}` when there is nothing to
// send): the server refuses other content types on those routes. Answers are
// read as JSON when they are JSON; a network failure becomes a NetworkError
// with a sentence a person can act on, never an uncaught "Failed to fetch".

export class NetworkError extends Error {
  constructor() {
    super("Could not reach edgehost: the Worker is down or the network failed. Try again once it is back.");
    this.name = "NetworkError";
  }
}

/** @type {(error: { code: string, message: string, authMode?: string }) => void} */
let onUnauthenticated = () => {};

/** Called when any answer says the caller is not signed in (401 `unauthenticated`). */
export function whenSignedOut(handler) {
  onUnauthenticated = handler;
}

/**
 * @param {string} path
 * @param {{ method?: string, body?: unknown, keepalive?: boolean }} [options] `keepalive`: sent even while the page unloads
 * @returns {Promise<{ ok: boolean, status: number, data: any }>}
 */
export async function request(path, { method = "GET", body, keepalive = false } = {}) {
  /** @type {RequestInit & { headers: Record<string, string> }} */
  const init = { method, credentials: "same-origin", headers: { accept: "application/json" }, keepalive };
  if (method !== "GET" && method !== "HEAD") {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body ?? {});
  }
  let response;
  let text = "";
  try {
    response = await fetch(path, init);
    text = await response.text();
  } catch {
    throw new NetworkError();
  }
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (response.status === 401 && data?.error?.code === "unauthenticated") onUnauthenticated(data.error);
  return { ok: response.ok, status: response.status, data };
}

/**
 * `request`, with a network failure as one more refusal (code `network`, the NetworkError's
 * sentence): for dialogs that show every refusal on their status line and stay usable.
 * @param {string} path
 * @param {{ method?: string, body?: unknown, keepalive?: boolean }} [options]
 * @returns {Promise<{ ok: boolean, status: number, data: any }>}
 */
export async function requestOrRefusal(path, options) {
  try {
    return await request(path, options);
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    return { ok: false, status: 0, data: { error: { code: "network", message: error.message } } };
  }
}

/** "code: message" for an error answer, with validation issues one per line. */
export function describeError(status, data) {
  const error = data?.error;
  if (!error) return `The server answered ${status}.`;
  const issues = Array.isArray(error.issues) && error.issues.length ? `\n${error.issues.map((i) => `- ${i.path || "(body)"}: ${i.message}`).join("\n")}` : "";
  return `${error.message ?? "Request failed"} (${error.code ?? status})${issues}`;
}
