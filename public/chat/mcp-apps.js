// MCP Apps in the chat: a completed call of a tool that declares a `ui://`
// resource (its `uiResourceUri` in GET /api/servers) gets that app framed in its
// card (mcp-app-frame.js), fed the call's arguments and result. Live calls and
// calls replayed from the history alike; every app is torn down when the chat is
// cleared (another session, a reset, a reconnect's replay) or the page goes away.

import { request } from "../core/api.js";

const enc = encodeURIComponent;
/** The mounted frames, by card element. */
const mounted = new Map();
/** Cards whose app is being torn down: hidden, kept in the chat until it is done. */
const leaving = new Set();
/** Per session id: a promise of Map("server\0tool" → the tool as GET /api/servers lists it, when it has an app). */
let toolsOf = new Map();

async function uiTools(sessionId) {
  let tools = toolsOf.get(sessionId);
  if (!tools) {
    tools = request(`/api/servers?session=${enc(sessionId)}`)
      .then(({ ok, data }) => (ok ? data : { servers: [] }))
      .then(({ servers }) => new Map(servers.flatMap((s) => s.tools.filter((t) => t.uiResourceUri).map((t) => [`${s.name}\u0000${t.name}`, t]))))
      .catch(() => {
        toolsOf.delete(sessionId);
        return new Map();
      });
    toolsOf.set(sessionId, tools);
  }
  return tools;
}

/**
 * The result as the app's `ui/notifications/tool-result` carries it. The page sees a
 * call's result as the session reduced it (src/orchestrator/tool-results.ts): structured
 * content as the object, otherwise the text. So structured content comes back as both
 * `structuredContent` and its JSON text, anything else as one text part.
 */
function appToolResult(result) {
  if (result !== null && typeof result === "object" && !Array.isArray(result)) {
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  }
  return { content: [{ type: "text", text: typeof result === "string" ? result : JSON.stringify(result ?? null) }] };
}

/** The servers (and so their tools) changed: ask again at the next app. */
export function forgetAppTools() {
  toolsOf = new Map();
}

/**
 * A card's call completed: frame its tool's app, if it has one. `card` is the card
 * element; called again for the same card (its `entry` and its `status` both say it
 * completed), nothing happens.
 */
export async function showAppFor(card, sessionId, call) {
  if (!sessionId || mounted.has(card) || card.querySelector(".tool-app")) return;
  const box = document.createElement("div");
  box.className = "tool-app";
  box.hidden = true;
  card.append(box);
  const tool = (await uiTools(sessionId)).get(`${call.server}\u0000${call.tool}`);
  // Gone meanwhile (the chat was cleared), or no app for this tool.
  if (!tool || !card.isConnected) return box.remove();
  // Loaded at the first app: the host side of the extension is most of the page's weight
  // (ext-apps' bridge and its zod), and most chats never show an app.
  const { mountAppFrame } = await import("./mcp-app-frame.js");
  if (!card.isConnected) return box.remove();
  box.hidden = false;
  box.dataset.state = "loading";
  // The app's host context names the tool (ui/initialize's toolInfo), as MCP's Tool.
  const definition = {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
  };
  mounted.set(
    card,
    mountAppFrame(box, {
      sessionId,
      server: call.server,
      tool: definition,
      uri: tool.uiResourceUri,
      arguments: call.arguments ?? {},
      result: appToolResult(call.result),
    }),
  );
}

/**
 * Tears every app down (ui/resource-teardown, then its frame goes). Returns the cards
 * that hold one, now hidden: the chat keeps them in the document until their app has
 * answered (a frame taken out of the document is gone at once, teardown unheard), and
 * each card is removed when its teardown ends.
 */
export function teardownApps() {
  for (const [card, frame] of mounted) {
    card.hidden = true;
    card.classList.add("leaving");
    leaving.add(card);
    void frame.teardown().then(() => {
      leaving.delete(card);
      card.remove();
    });
  }
  mounted.clear();
  // Still leaving from an earlier clear (a session switch clears, then its history does again).
  return [...leaving];
}

addEventListener("pagehide", () => void teardownApps());
