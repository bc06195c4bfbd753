// The one rule for which MCP servers a user's session has: the deployment's (mcp.json,
// after its audience rule: deployment.ts), then the user's own runtime servers, then
// their paired machines' servers (machines.ts). A name already taken (any case) keeps
// the earlier source's server and leaves the later one out, saying so; a runtime server
// whose address a deployed Worker may not reach (url-policy.ts) is listed unavailable.
import type { MachineView } from "../machines/machine-store";
import type { RemoteServerConfig } from "../shared/mcp-config/config";
import type { DeploymentServers } from "./deployment";
import { machineServers } from "./machines";

export interface UserSources {
  /** The user's runtime servers (disabled ones included). */
  servers: readonly RemoteServerConfig[];
  machines: readonly MachineView[];
  /** Why a runtime server's URL may not be connected to here. */
  refuseUrl?: (url: string) => string | undefined;
}

export function mergeServers(base: DeploymentServers, user: UserSources): DeploymentServers {
  const taken = new Set([...base.config.servers.map((s) => s.name.toLowerCase()), ...base.unreachable.map((u) => u.server.toLowerCase())]);
  const clashes = user.servers.filter((s) => taken.has(s.name.toLowerCase()));
  const candidates = user.servers.filter((s) => !taken.has(s.name.toLowerCase()) && !s.disabled);
  for (const s of candidates) taken.add(s.name.toLowerCase());
  const refusedUrls = candidates.flatMap((s) => {
    const reason = user.refuseUrl?.(s.url);
    return reason ? [{ server: s.name, reason }] : [];
  });
  const own = candidates.filter((s) => !refusedUrls.some((r) => r.server === s.name));
  const machines = machineServers(user.machines);
  const free = (name: string) => !taken.has(name.toLowerCase());
  const machineClashes = [...machines.servers.map((s) => s.name), ...machines.unreachable.map((u) => u.server)].filter((name) => !free(name));
  return {
    config: { servers: [...base.config.servers, ...own, ...machines.servers.filter((s) => free(s.name))] },
    unreachable: [...base.unreachable, ...refusedUrls, ...machines.unreachable.filter((u) => free(u.server))],
    problems: [
      ...base.problems,
      ...clashes.map((s) => `Your MCP server "${s.name}" is left out: mcp.json has a server of that name.`),
      ...machineClashes.map((name) => `Your machine's server "${name}" is left out: another server has that name.`),
    ],
  };
}
