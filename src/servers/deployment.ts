// The deployment's servers (mcp.json) as one user's session has them: the audience rule
// applied (audience.ts), and every request to the shared bridge marked with the user it
// is for, so the bridge can keep server requests (sampling, elicitation) with that user.
// The header means something only together with the bridge token, which only the
// Worker holds.
import { isBridged } from "../mcp/bridge-routing";
import type { McpConfig } from "../shared/mcp-config/config";
import { audienceVerdict, type Audience } from "./audience";

/** The deployment's servers as a session holds them (session/mcp-config.ts builds them from mcp.json). */
export interface DeploymentServers {
  config: McpConfig;
  /** Servers that cannot be reached from here, with why. */
  unreachable: { server: string; reason: string }[];
  problems: string[];
}

/** The header that tells the bridge whose MCP session a request belongs to (local-bridge/src/user-scope.ts). */
export const BRIDGE_USER_HEADER = "X-Edgehost-User";

export function deploymentServersFor(base: DeploymentServers, audience: Audience, bridgeUrl: string | undefined): DeploymentServers {
  const servers: McpConfig["servers"] = [];
  const unreachable = [...base.unreachable];
  for (const server of base.config.servers) {
    const bridged = server.transport !== "stdio" && isBridged(server.url, bridgeUrl);
    const verdict = audienceVerdict({ transport: bridged ? "stdio" : server.transport, users: server.users }, audience);
    if (!verdict.ok) {
      if (!verdict.hidden) unreachable.push({ server: server.name, reason: verdict.reason });
      continue;
    }
    if (bridged && audience.user) servers.push({ ...server, headers: { ...server.headers, [BRIDGE_USER_HEADER]: audience.user.id } });
    else servers.push(server);
  }
  return { config: { servers }, unreachable, problems: base.problems };
}
