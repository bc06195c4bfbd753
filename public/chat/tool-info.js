// What a tool says about itself (its description, as its MCP server wrote it), for the
// approval dialog: read from GET /api/servers of the open session once, and again after
// the session's servers change. Untrusted text: shown with textContent only.
import { request } from "../core/api.js";
import { state, subscribe } from "../core/state.js";

/** @typedef {{ description: string, inputSchema: any }} ToolInfo */
/** @type {Map<string, Promise<Map<string, ToolInfo>>>} per session ("" for the console's): "server\0tool" → description and input schema */
let described = new Map();

subscribe(["servers"], () => {
  described = new Map();
});

/** @param {string | null} sessionId */
function descriptions(sessionId) {
  const key = sessionId ?? "";
  let found = described.get(key);
  if (!found) {
    found = request(sessionId ? `/api/servers?session=${encodeURIComponent(sessionId)}` : "/api/servers")
      .then(({ ok, data }) => (ok && Array.isArray(data?.servers) ? data.servers : []))
      .then(
        (servers) =>
          new Map(
            servers.flatMap((s) =>
              (s.tools ?? []).map((t) => [`${s.name}\u0000${t.name}`, { description: String(t.description ?? ""), inputSchema: t.inputSchema }]),
            ),
          ),
      )
      .catch(() => {
        described.delete(key);
        return new Map();
      });
    described.set(key, found);
  }
  return found;
}

/**
 * The description of `server`'s `tool` ("" when it has none or it cannot be read).
 * @param {string} server @param {string} tool @param {string | null} [sessionId] the open session's by default
 */
export async function toolDescription(server, tool, sessionId = state.sessionId) {
  return (await descriptions(sessionId)).get(`${server}\u0000${tool}`)?.description ?? "";
}

/**
 * The input schema of `server`'s `tool` (undefined when it cannot be read), for the approval's rule builder.
 * @param {string} server @param {string} tool @param {string | null} [sessionId] the open session's by default
 */
export async function toolSchema(server, tool, sessionId = state.sessionId) {
  return (await descriptions(sessionId)).get(`${server}\u0000${tool}`)?.inputSchema;
}
