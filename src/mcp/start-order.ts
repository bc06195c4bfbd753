// Starting a host's servers: dependencies first (a server waits for those its entry
// names), independent servers in parallel, and one report of what became ready and
// what failed, with the typed error behind a failure when it was one of ours.
import { EdgehostError, findCause } from "../shared/errors";
import type { ErrorCode } from "../shared/error-codes";
import { errorMessage } from "../shared/logger";
import type { ServerConnection } from "./connection";
import { ServerUnavailableError } from "./errors";
import { publicFailure } from "./http-failure";

export interface ConnectReport {
  ready: string[];
  /** `code`: the typed error's, when the failure was one of ours (e.g. "oauth_unsupported"). */
  failed: { server: string; reason: string; code?: ErrorCode }[];
}

export async function startInOrder(connections: Map<string, ServerConnection>, names: string[]): Promise<ConnectReport> {
  const started = new Map<string, Promise<void>>();
  const start = (name: string): Promise<void> => {
    let promise = started.get(name);
    if (promise) return promise;
    const connection = connections.get(name);
    if (!connection || connection.state === "disabled") return Promise.resolve();
    promise = (async () => {
      for (const dependency of connection.config.dependencies) {
        await start(dependency).catch(() => {
          throw new Error(`dependency "${dependency}" failed to start`);
        });
      }
      await connection.connect();
    })().catch((error) => {
      connection.markUnavailable(publicFailure(error));
      throw error;
    });
    started.set(name, promise);
    return promise;
  };
  const results = await Promise.allSettled(names.map(start));
  const report: ConnectReport = { ready: [], failed: [] };
  results.forEach((result, i) => {
    const server = names[i] ?? "";
    if (result.status === "fulfilled") report.ready.push(server);
    else {
      // The typed error behind the unavailability, if any (e.g. an authorization server this client refuses).
      const code = findCause(result.reason, (e): e is EdgehostError => e instanceof EdgehostError && !(e instanceof ServerUnavailableError))?.code;
      report.failed.push({ server, reason: connections.get(server)?.lastError ?? errorMessage(result.reason), ...(code ? { code } : {}) });
    }
  });
  return report;
}
