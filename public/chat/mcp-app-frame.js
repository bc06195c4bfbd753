// One MCP App in the page: the HTML of a tool's `ui://` resource in a sandboxed
// iframe, and the host side of the extension (ext-apps' AppBridge, bundled in
// vendor/ext-apps/ by scripts/bundle-app-bridge.mjs) speaking to it.
//
// Isolation. The spec's web hosts frame an app through a "sandbox proxy" on a second
// origin. edgehost has one origin, so the app's document is served by the Worker
// itself (GET /sessions/{id}/ui-resource) with a Content-Security-Policy *header*
// that includes `sandbox allow-scripts`, and framed here with
// sandbox="allow-scripts" and no allow-same-origin: its origin is opaque, so it
// cannot reach this page's DOM, cookies or storage, nor (no 'self' in its CSP) call
// this origin's API; it loads only from the domains its resource declares. It talks
// to the page only by postMessage, which the bridge reads only from its own frame.
//
// What an app may ask: tools/call (its own server's tools, through the session's
// approval, POST /sessions/{id}/app-tool-call; a denied call is an error to the
// app; a call still pending when the app goes is cancelled), open a link (http and https only, in a new tab without opener), log
// (to the console). Messages into the chat, model context, resources, sampling and
// other display modes are refused with an error.
import { AppBridge, PostMessageTransport } from "../vendor/ext-apps/app-bridge.js";

const HOST_INFO = { name: "edgehost", version: "0.1.0" };
const HOST_CAPABILITIES = { openLinks: {}, serverTools: {}, logging: {} };
/** An app taller than this scrolls inside its frame instead of pushing the chat away. */
const MAX_APP_HEIGHT = 1200;
/** How long an app gets to answer `ui/resource-teardown` before its frame goes anyway. */
const TEARDOWN_MS = 1000;

const enc = encodeURIComponent;

async function postJson(path, body) {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  return { ok: response.ok, status: response.status, data };
}

/** @returns {any} the ext-apps host context (its theme and display mode are string unions the literal here widens) */
function hostContext(container, tool) {
  return {
    toolInfo: { tool },
    theme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    platform: "web",
    locale: navigator.language,
    containerDimensions: { width: container.clientWidth || undefined, maxHeight: MAX_APP_HEIGHT },
  };
}

/**
 * Frames the app of `call` in `container` and delivers the call's input and result
 * once the app has initialized. Returns the frame's handle: `teardown()` asks the
 * app to clean up (ui/resource-teardown), then removes the frame.
 *
 * @param {HTMLElement} container
 * @param {{ sessionId: string, server: string, tool: { name: string, inputSchema: object }, uri: string, arguments: object, result: object }} call
 */
export function mountAppFrame(container, call) {
  const iframe = document.createElement("iframe");
  // Opaque origin: no allow-same-origin, ever (see the header comment).
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("referrerpolicy", "no-referrer");
  iframe.className = "mcp-app-frame";
  const name = `${call.server}.${call.tool.name}`;
  iframe.title = `${name} app`;
  iframe.dataset.uri = call.uri;
  container.append(iframe);

  const bridge = new AppBridge(null, HOST_INFO, HOST_CAPABILITIES, { hostContext: hostContext(container, call.tool) });
  bridge.oninitialized = () => {
    // A frame torn down meanwhile rejects these; nothing is left to tell.
    bridge.sendToolInput({ arguments: call.arguments ?? {} }).catch(() => {});
    bridge.sendToolResult(call.result).catch(() => {});
    container.dataset.state = "ready";
  };
  bridge.onsizechange = ({ height }) => {
    if (typeof height === "number" && height > 0) iframe.style.height = `${Math.min(Math.ceil(height), MAX_APP_HEIGHT)}px`;
  };
  /** Ids of this app's calls still pending at the session (asked, or running). */
  const pendingCalls = new Set();
  const cancelCall = (id) => {
    // keepalive: sent even while the page unloads.
    fetch(`/sessions/${enc(call.sessionId)}/app-tool-call/${enc(id)}`, {
      method: "DELETE",
      credentials: "same-origin",
      keepalive: true,
      headers: { "content-type": "application/json" },
      body: "{}",
    }).catch(() => {});
  };
  bridge.oncalltool = async (params, extra) => {
    const id = crypto.randomUUID();
    pendingCalls.add(id);
    // The app gave up on it (notifications/cancelled): the session stops asking, or stops the call.
    const signal = extra?.mcpReq?.signal;
    const onAbort = () => cancelCall(id);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const answer = await postJson(`/sessions/${enc(call.sessionId)}/app-tool-call`, {
        id,
        server: call.server,
        tool: params.name,
        arguments: params.arguments ?? {},
      });
      // Thrown errors reach the app as JSON-RPC errors: a denied or failed call is never a result.
      if (!answer.ok) throw new Error(answer.data?.error?.message ?? `the call failed (${answer.status})`);
      return answer.data.result;
    } finally {
      pendingCalls.delete(id);
      signal?.removeEventListener("abort", onAbort);
    }
  };
  bridge.onopenlink = async ({ url }) => {
    let parsed;
    try {
      parsed = new URL(url);
    } catch {
      return { isError: true };
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return { isError: true };
    window.open(parsed.href, "_blank", "noopener,noreferrer");
    return {};
  };
  // The chat's messages are the user's own: an app cannot write them.
  bridge.onmessage = async () => ({ isError: true });
  bridge.onloggingmessage = ({ level, data }) => console.debug(`[${call.server} app] ${level}:`, data);
  bridge.onrequestteardown = () => void teardown();

  // Listening before the document loads, so its `ui/initialize` is not missed; the
  // frame's window stays the same object across that navigation.
  const transport = new PostMessageTransport(iframe.contentWindow, iframe.contentWindow);
  const connected = bridge.connect(transport);
  connected.catch((error) => console.warn(`${name} app: the bridge did not connect`, error));
  iframe.src = `/sessions/${enc(call.sessionId)}/ui-resource?server=${enc(call.server)}&uri=${enc(call.uri)}`;

  let ended = false;
  async function teardown() {
    if (ended) return;
    ended = true;
    // Its calls have nobody to answer to: the session closes their approval questions.
    for (const id of pendingCalls) cancelCall(id);
    try {
      await connected;
      if (bridge.getAppCapabilities()) {
        await Promise.race([bridge.teardownResource({}), new Promise((resolve) => setTimeout(resolve, TEARDOWN_MS))]);
      }
    } catch {
      // An app that fails its teardown still goes.
    }
    await bridge.close().catch(() => {});
    iframe.remove();
  }
  return { iframe, teardown };
}
