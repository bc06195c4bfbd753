// A server's log lines on MCP 2026-07-28. A 2025 connection gets a server's
// `notifications/message` on its session whatever the host asks (it never sends
// `logging/setLevel`), and server-client.ts writes them to the host's log. The 2026
// revision has no session: a request asks for the lines it causes with a level in its
// `_meta`, and gets them on its own response stream. The v2 SDK adds no such key by
// itself, so the host's requests that do a server's work (tool calls, prompts, resource
// reads) carry it on a modern connection; the lines reach the same handler.
import type { Client } from "@modelcontextprotocol/client";

export const LOG_LEVEL_META = "io.modelcontextprotocol/logLevel";

/**
 * Info and above: the level the Worker logs at by default (LOG_LEVEL), so a server's
 * debug chatter does not travel on every call only to be dropped by the logger.
 */
export const SERVER_LOG_LEVEL = "info";

/** The `_meta` to spread into a request's params: the log level on a 2026 connection, nothing on 2025 (which keeps its session-wide logs). */
export function logLevelMeta(client: Client): { _meta?: Record<string, string> } {
  return client.getProtocolEra() === "modern" ? { _meta: { [LOG_LEVEL_META]: SERVER_LOG_LEVEL } } : {};
}
