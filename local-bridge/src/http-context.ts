// What the bridge's HTTP routes (http.ts, streamable.ts) get from the bridge: its access
// policy, limits, the proxies of its servers and the open sessions. A file of its own so
// the two route files do not import each other.
import type { Logger } from "@edgehost/shared/logger";
import type { AccessPolicy } from "./auth";
import type { ServerProxy } from "./proxy";
import type { LegacySseSession, StreamableSession } from "./sessions";

export interface HttpContext {
  access: AccessPolicy;
  logger: Logger;
  maxBodyBytes: number;
  standaloneStream: boolean;
  /** The server's proxy for `user` (its own child when the server is isolated per user). */
  proxy(name: string, user: string): ServerProxy | undefined;
  health(): { ok: boolean };
  metrics(): unknown;
  streamable: Map<string, StreamableSession>;
  legacy: Map<string, LegacySseSession>;
}
