// What a server connection is made with (its dependencies and policies) and the states it
// can be in: shared by connection.ts and those that build or watch connections.
import type { ClientCapabilities, Implementation } from "@modelcontextprotocol/client";
import { z } from "zod";
import type { BackoffPolicy } from "../shared/backoff";
import type { Logger } from "../shared/logger";
import type { BreakerPolicy } from "./breaker";
import type { ListMemory } from "./discovery";
import type { EraVerdict } from "./protocol-era";
import type { ServerRequestHandlers } from "./server-requests";
import type { TransportFactory } from "./transports";

// auth_required: the server answered 401 and only the user signing in (OAuth) lets us in.
export const ServerStateSchema = z.enum(["connecting", "ready", "unavailable", "closed", "disabled", "auth_required"]);
export type ServerState = z.infer<typeof ServerStateSchema>;
export type ChangeKind = "tools" | "prompts" | "resources" | "state";

export interface ConnectionPolicies {
  connectTimeoutMs: number;
  reconnect: Pick<BackoffPolicy, "initialMs" | "maxMs">;
  breaker: BreakerPolicy;
}

export interface ConnectionDeps {
  transports: TransportFactory;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  handlers: () => ServerRequestHandlers;
  logger: Logger;
  now: () => number;
  policies: ConnectionPolicies;
  onChange: (server: string, kind: ChangeKind) => void;
  /** A resource this client subscribed to changed (notifications/resources/updated). */
  onResourceUpdated?: (server: string, uri: string) => void;
  /** What each server was last found with: its era, so a connect skips the probe (protocol-era.ts); its lists with a ttl (list-ttl.ts). */
  eras?: EraMemory & ListMemory;
}

export interface EraMemory {
  remembered(server: string): EraVerdict | undefined;
  /** A connect found (or confirmed) `server`'s era (a session keeps it with the server's discovery instead). */
  found?(server: string, verdict: EraVerdict): void;
}
