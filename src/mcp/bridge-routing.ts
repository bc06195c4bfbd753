// In the Worker, stdio servers cannot be spawned: each is reached through the
// local-bridge, which serves it as Streamable HTTP at `/servers/{name}/mcp`. This maps
// a parsed mcp.json onto those URLs so the same file drives the Worker and the bridge.
// Runtime-neutral.
import type { McpConfig, RemoteServerConfig, ServerConfig } from "../shared/mcp-config/config";

export interface BridgeEndpoint {
  /** Base URL of the bridge, e.g. `http://127.0.0.1:8788`. */
  url: string;
  token?: string;
  /** A Cloudflare Access service token, for a bridge behind a tunnel that Access protects. */
  access?: { clientId: string; clientSecret: string };
}

export function routeStdioThroughBridge(config: McpConfig, bridge: BridgeEndpoint): McpConfig {
  // A trailing slash in BRIDGE_URL would otherwise produce `//servers/...`.
  const base = bridge.url.replace(/\/+$/, "");
  // Access checks its service token at the edge; the bridge still checks its own bearer token.
  const headers = (): Record<string, string> => ({
    ...(bridge.token ? { Authorization: `Bearer ${bridge.token}` } : {}),
    ...(bridge.access ? { "CF-Access-Client-Id": bridge.access.clientId, "CF-Access-Client-Secret": bridge.access.clientSecret } : {}),
  });
  const route = (server: ServerConfig): ServerConfig => {
    if (server.transport !== "stdio") return server;
    const { name, disabled, timeoutMs, alwaysAllow, dependencies, includeTools, excludeTools, users, gateway } = server;
    const routed: RemoteServerConfig = {
      name,
      disabled,
      timeoutMs,
      alwaysAllow,
      dependencies,
      ...(includeTools ? { includeTools } : {}),
      ...(users ? { users } : {}),
      ...(gateway === false ? { gateway } : {}),
      excludeTools,
      transport: "http",
      url: `${base}/servers/${encodeURIComponent(name)}/mcp`,
      headers: headers(),
    };
    return routed;
  };
  return { servers: config.servers.map(route) };
}

/** Whether `url` is a stdio server's route through the bridge at `bridgeUrl` (as routeStdioThroughBridge builds it). */
export function isBridged(url: string, bridgeUrl: string | undefined): boolean {
  const bridge = bridgeUrl?.replace(/\/+$/, "");
  return bridge !== undefined && url.startsWith(`${bridge}/servers/`);
}
