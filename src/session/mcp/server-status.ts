// The server rows the page shows: the host's connections, servers configured but not
// yet handed to it (the owner's servers still being read), and those left unreachable.
import type { McpHost } from "../../mcp/host";
import type { SessionMcpConfig } from "../../servers/mcp-json";
import type { ServerStatusView } from "./deps";

export function serverStatus(host: McpHost, config: SessionMcpConfig, enabled: (server: string) => boolean): ServerStatusView[] {
  const names = new Map<string, string[]>();
  for (const tool of host.tools()) names.set(tool.server, [...(names.get(tool.server) ?? []), tool.name]);
  const live: ServerStatusView[] = host.servers().map((s) => ({
    name: s.name,
    state: s.state,
    enabled: enabled(s.name),
    toolCount: s.toolCount,
    lastError: s.lastError,
    protocol: s.protocol,
    ...(s.state === "ready" ? { tools: names.get(s.name) ?? [] } : {}),
  }));
  const known = new Set(live.map((s) => s.name));
  for (const server of config.config.servers) {
    if (!known.has(server.name) && !server.disabled)
      live.push({ name: server.name, state: "connecting", enabled: enabled(server.name), toolCount: 0, lastError: undefined });
  }
  const missing = config.unreachable.map((u) => ({
    name: u.server,
    state: "unavailable" as const,
    enabled: enabled(u.server),
    toolCount: 0,
    lastError: u.reason,
  }));
  return [...live, ...missing];
}
