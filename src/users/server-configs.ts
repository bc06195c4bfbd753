// The owner's runtime servers as an account snapshot holds them, turned into the MCP
// host's config shape: one conversion for every object that connects them (a chat
// session, src/session/session-owner.ts; an app at /mcp, src/gateway/gateway-parts.ts).
import type { RemoteServerConfig } from "../shared/mcp-config/config";
import type { MachineView } from "../machines/machine-store";
import type { ServersSnapshot } from "./UserAccount";
import { validateUserServer } from "./user-servers";

/** The owner's runtime servers in the host's config shape; `servers` only when the list changed. */
export type UserServerList = { version: string; servers?: RemoteServerConfig[]; machines?: MachineView[] };

export function snapshotConfigs({ version, servers, machines }: ServersSnapshot): UserServerList {
  if (!servers) return { version };
  // Stored entries were validated when saved; parsing again yields the host's config shape.
  return {
    version,
    servers: servers.flatMap((s) => {
      const v = validateUserServer(s);
      return v.ok ? [v.config] : [];
    }),
    machines,
  };
}
