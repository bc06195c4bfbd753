// The session's view of mcp.json: the embedded file (or MCP_CONFIG), with stdio
// servers routed through the local bridge. Problems become notices for the user,
// never a failed session.
import { routeStdioThroughBridge } from "../mcp/bridge-routing";
import { parseMcpConfig, type McpConfig } from "../shared/mcp-config/config";
import { ConfigError } from "../shared/errors";
import type { Settings } from "../config/settings";
import { MCP_JSON } from "../generated/mcp-config";

export interface SessionMcpConfig {
  config: McpConfig;
  /** Servers that cannot be reached from here, with why. */
  unreachable: { server: string; reason: string }[];
  problems: string[];
}

// Parsed once per environment and settings (the same for every session and request of an
// isolate); callers copy, never change, what they get.
const loaded = new WeakMap<object, WeakMap<Settings, SessionMcpConfig>>();

export function loadSessionMcpConfig(env: Record<string, unknown>, settings: Settings): SessionMcpConfig {
  let bySettings = loaded.get(env);
  if (!bySettings) loaded.set(env, (bySettings = new WeakMap()));
  let config = bySettings.get(settings);
  if (!config) bySettings.set(settings, (config = load(env, settings)));
  return config;
}

function load(env: Record<string, unknown>, settings: Settings): SessionMcpConfig {
  const text = typeof env.MCP_CONFIG === "string" && env.MCP_CONFIG.trim() ? env.MCP_CONFIG : MCP_JSON;
  const vars: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) if (typeof value === "string") vars[key] = value;
  let config: McpConfig;
  try {
    config = parseMcpConfig(text, { fileName: "mcp.json", env: vars });
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : "mcp.json could not be read";
    return { config: { servers: [] }, unreachable: [], problems: [`MCP servers are off: ${message}`] };
  }
  const enabled = { servers: config.servers.filter((s) => !s.disabled) };
  if (settings.BRIDGE_URL) {
    const access =
      settings.BRIDGE_ACCESS_CLIENT_ID && settings.BRIDGE_ACCESS_CLIENT_SECRET
        ? { clientId: settings.BRIDGE_ACCESS_CLIENT_ID, clientSecret: settings.BRIDGE_ACCESS_CLIENT_SECRET }
        : undefined;
    return { config: routeStdioThroughBridge(enabled, { url: settings.BRIDGE_URL, token: settings.BRIDGE_TOKEN, access }), unreachable: [], problems: [] };
  }
  const stdio = enabled.servers.filter((s) => s.transport === "stdio");
  const refused = typeof env.BRIDGE_URL === "string" && env.BRIDGE_URL.trim() !== "";
  return {
    config: { servers: enabled.servers.filter((s) => s.transport !== "stdio") },
    unreachable: stdio.map((s) => ({
      server: s.name,
      reason: refused
        ? "it is a stdio server and BRIDGE_URL was refused (it must be https:// unless the bridge is on this machine)"
        : "it is a stdio server and BRIDGE_URL is not set (run the local bridge)",
    })),
    problems: [],
  };
}
