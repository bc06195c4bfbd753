// wrangler dev's inspector proxy turns on the runtime's CDP Network domain each time
// it connects to workerd (at start and after every reload). Then every subrequest
// the Worker makes — each model call and MCP call, about 20 events per chat turn —
// is sent to the proxy, buffered in its memory until a DevTools window attaches
// (none may ever do), and forwarded to wrangler's Node process, which formats it
// and appends it to its debug log (~/.config/.wrangler/logs, one mkdir + append per
// line). On a 2-core machine that costs about as much as the Worker's own turn.
// `setNetworkEvents(port, false)` connects as a short-lived DevTools client, sends
// `Network.disable` and leaves (which also flushes the buffer). A DevTools client
// that shows network requests sends `Network.enable` itself, and gets them again.
import WebSocket from "ws";

// Far from the proxy's own command ids (it counts up from 1).
const COMMAND_ID = 2_000_000_001;

/**
 * Turns the runtime's Network events on or off through wrangler dev's inspector at
 * `inspectorPort`. Resolves false, doing nothing, while another DevTools client is
 * attached (the proxy takes one at a time, and that client decides).
 */
export async function setNetworkEvents(inspectorPort, on, timeoutMs = 10_000) {
  const base = `http://127.0.0.1:${inspectorPort}`;
  const targets = await (await fetch(`${base}/json`, { signal: AbortSignal.timeout(timeoutMs) })).json();
  const url = Array.isArray(targets) ? targets[0]?.webSocketDebuggerUrl : undefined;
  if (typeof url !== "string") throw new Error(`the inspector at ${base} lists no target`);
  const socket = new WebSocket(url);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      outcome(value);
    };
    const timer = setTimeout(() => {
      socket.terminate();
      settle(reject, new Error(`the inspector at ${base} did not answer Network.${on ? "enable" : "disable"} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once("open", () => socket.send(JSON.stringify({ id: COMMAND_ID, method: on ? "Network.enable" : "Network.disable" })));
    socket.on("message", (data) => {
      let message;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      if (message?.id !== COMMAND_ID) return; // buffered events the proxy replays to any client
      if (message.error) settle(reject, new Error(`Network.${on ? "enable" : "disable"}: ${JSON.stringify(message.error)}`));
      else settle(resolve, true);
    });
    // 1013: a DevTools window is attached.
    socket.once("close", (code) =>
      settle(code === 1013 ? resolve : reject, code === 1013 ? false : new Error(`the inspector closed the connection (${code})`)),
    );
    socket.once("error", (error) => settle(reject, error));
  });
}
