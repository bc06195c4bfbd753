// One connect of a server: its transports tried in order (Streamable HTTP, then the
// legacy SSE transport only where the server answered like a 2024 server), the Client
// negotiating its era with `mode: "auto"` or from a remembered verdict (protocol-era.ts).
// A remembered verdict that no longer holds (the server changed era) costs one failed
// attempt, then the era is probed again on the same transport.
import type { Client, ClientCapabilities, Implementation, PriorDiscovery, Root } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../shared/mcp-config/config";
import { errorMessage, type Logger } from "../shared/logger";
import { isSignInRequired } from "./oauth/errors";
import { createServerClient } from "./server-client";
import type { ServerRequestHandlers } from "./server-requests";
import { TrackedTransport } from "./tracked-transport";
import { shouldFallBack, type TransportFactory, type TransportHandle } from "./transports";
import { versionRefusalError } from "./version-refusal";

export interface AttemptDeps {
  transports: TransportFactory;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  handlers: () => ServerRequestHandlers;
  logger: Logger;
  connectTimeoutMs: number;
  roots: () => Root[] | undefined;
}

export interface AttemptHooks {
  /** False once this attempt was superseded (a newer connect, a close). */
  current: () => boolean;
  /** A response stream broke before its answer. */
  onStreamBroken: (error: unknown) => void;
  /** The client and transport now being tried, so the connection can end them if the attempt times out. */
  attach: (handle: TransportHandle, tracked: TrackedTransport, client: Client) => void;
  /** Runs once the client connected (read what the server offers); its failure fails the attempt. `prior`: the remembered verdict held. */
  connected: (client: Client, handle: TransportHandle, prior: boolean) => Promise<void>;
}

export async function openClient(config: ServerConfig, deps: AttemptDeps, hooks: AttemptHooks, prior?: PriorDiscovery): Promise<Client> {
  const candidates = deps.transports(config);
  let remembered = prior;
  for (let i = 0; ; ) {
    const candidate = candidates[i];
    if (!candidate) throw new Error("no transport for this server");
    const handle = candidate.create({
      // A response stream that broke before its answer: the request would wait for its timeout.
      // Closing the client fails the requests in flight at once.
      onStreamBroken: (error) => {
        if (hooks.current()) hooks.onStreamBroken(error);
      },
    });
    const tracked = new TrackedTransport(handle.transport);
    const client = createServerClient({
      server: config.name,
      clientInfo: deps.clientInfo,
      capabilities: deps.capabilities,
      handlers: deps.handlers,
      roots: deps.roots,
    });
    hooks.attach(handle, tracked, client);
    try {
      await client.connect(tracked, { timeout: deps.connectTimeoutMs, ...(remembered ? { prior: remembered } : {}) });
      if (!hooks.current()) throw new Error("superseded");
      await hooks.connected(client, handle, remembered !== undefined);
      if (!hooks.current()) throw new Error("superseded");
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      if (!hooks.current()) throw error;
      if (remembered && !isSignInRequired(error)) {
        deps.logger.info("remembered protocol era did not hold: probing again", { server: config.name, era: remembered.kind, reason: errorMessage(error) });
        remembered = undefined;
        continue;
      }
      const refusal = versionRefusalError(config.name, error);
      if (refusal) throw refusal;
      if (i + 1 < candidates.length && shouldFallBack(error)) {
        deps.logger.info("falling back to the next transport", { server: config.name, from: handle.kind, reason: errorMessage(error) });
        i++;
        continue;
      }
      throw error;
    }
  }
}
