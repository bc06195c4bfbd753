// The servers a session starts from before its owner's own are merged in: mcp.json's
// deployment servers this owner gets (each bridge request marked with whose it is),
// without those this side may not use (an app at /mcp: not mcp.json's `"gateway": false`).
import { loadSessionMcpConfig, type SessionMcpConfig } from "../../servers/mcp-json";
import { deploymentServersFor } from "../../servers/deployment";
import type { SessionMcpDeps } from "./deps";

export function sessionBaseConfig(deps: SessionMcpDeps): SessionMcpConfig {
  return offeredOnly(
    deploymentServersFor(loadSessionMcpConfig(deps.env, deps.settings), deps.audience?.() ?? { mode: "none" }, deps.settings.BRIDGE_URL),
    deps.offered,
  );
}

/** The deployment's servers without those `offered` leaves out (listed nowhere, not even as unreachable). */
function offeredOnly(servers: SessionMcpConfig, offered: SessionMcpDeps["offered"]): SessionMcpConfig {
  if (!offered) return servers;
  const kept = servers.config.servers.filter(offered);
  const names = new Set(kept.map((s) => s.name));
  const dropped = new Set(servers.config.servers.filter((s) => !names.has(s.name)).map((s) => s.name));
  return { ...servers, config: { servers: kept }, unreachable: servers.unreachable.filter((u) => !dropped.has(u.server)) };
}
