// A user's paired machines as MCP servers of their sessions: each server a machine
// announced becomes `{machine}-{server}`, reached over Streamable HTTP at an address
// only the owner's account answers (src/machines/tunnel-url.ts), through a fetch bound
// to that account. A machine that is offline keeps its servers listed as unavailable,
// saying why, so the page shows them rather than letting them vanish.
import type { MachineView } from "../machines/machine-store";
import type { TunnelAnswer, TunnelRequest } from "../machines/relay";
import { machineServerUrl, tunnelTarget } from "../machines/tunnel-url";
import { TUNNELLED_REQUEST_HEADERS } from "../shared/machine-frames";
import { errorJson } from "../shared/error-body";
import type { RemoteServerConfig } from "../shared/mcp-config/config";

/** The machine's servers keep the default call timeout of mcp.json entries. */
const TIMEOUT_MS = 60_000;

export interface MachineServers {
  servers: RemoteServerConfig[];
  unreachable: { server: string; reason: string }[];
}

export const machineServerName = (machine: string, server: string) => `${machine}-${server}`.slice(0, 64);

export function machineServers(machines: readonly MachineView[]): MachineServers {
  const servers: RemoteServerConfig[] = [];
  const unreachable: MachineServers["unreachable"] = [];
  for (const machine of machines) {
    for (const server of machine.servers) {
      const name = machineServerName(machine.name, server);
      if (!machine.online) {
        unreachable.push({ server: name, reason: `machine "${machine.name}" is offline (start \`mcp-local-bridge connect\` on it)` });
        continue;
      }
      servers.push({
        name,
        transport: "http",
        url: machineServerUrl(machine.id, server),
        headers: {},
        disabled: false,
        timeoutMs: TIMEOUT_MS,
        alwaysAllow: [],
        dependencies: [],
        excludeTools: [],
      });
    }
  }
  return { servers, unreachable };
}

/** The owner's account as a machine's relay (UserAccount.relayRequest). */
export interface RelayAccount {
  relayRequest(machineId: string, request: TunnelRequest): Promise<TunnelAnswer>;
  relayCancel(machineId: string, id: number): Promise<void>;
}

/**
 * A fetch that takes a session's request to a machine server to the owner's account,
 * which relays it: one RPC call with the request as values, and a whole answer back as
 * values, so no body streams between the two objects (but for an answer the machine streams).
 */
export function machineFetch(account: () => RelayAccount | undefined): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const target = tunnelTarget(request.url);
    const stub = account();
    if (!target || !stub) return errorJson("machine_unknown", "not a server of your machines");
    // Method, MCP headers and body only: the caller's abort signal does not cross to another object.
    const headers: [string, string][] = [];
    for (const name of TUNNELLED_REQUEST_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) headers.push([name, value]);
    }
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
    const answer = await stub.relayRequest(target.machineId, { method: request.method, path: target.path, headers, ...(body === undefined ? {} : { body }) });
    const { body: answered, stream } = answer;
    const answerBody =
      answered instanceof ReadableStream && stream !== undefined ? cancelling(answered, () => stub.relayCancel(target.machineId, stream)) : answered;
    return new Response(answerBody, { status: answer.status, headers: answer.headers });
  };
}

/** `source` as read here; when the reader cancels, `cancelled` tells the account (the stream itself does not carry that back). */
function cancelling(source: ReadableStream<Uint8Array>, cancelled: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      // The account ends its side first: cancelling a stream it still writes reads as a lost connection there.
      await cancelled().catch(() => undefined);
      await reader.cancel(reason);
    },
  });
}
