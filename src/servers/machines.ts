// A user's paired machines as MCP servers of their sessions: each server a machine
// announced becomes `{machine}-{server}`, reached over Streamable HTTP at an address
// only the owner's account answers (src/machines/tunnel-url.ts), through a fetch bound
// to that account. A machine that is offline keeps its servers listed as unavailable,
// saying why, so the page shows them rather than letting them vanish.
import type { MachineView } from "../machines/machine-store";
import { machineServerUrl, tunnelRequestUrl } from "../machines/tunnel-url";
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

/** A fetch that takes a session's request to a machine server to the owner's account, which relays it. */
export function machineFetch(account: () => { fetch(input: string, init: RequestInit): Promise<Response> } | undefined): typeof fetch {
  return async (input, init) => {
    const stub = account();
    // The MCP client's usual call (a URL and a string body) goes as given; anything else is read into a Request first.
    const simple = !(input instanceof Request) && (init?.body === undefined || init.body === null || typeof init.body === "string");
    const request = simple ? undefined : new Request(input, init);
    const target = tunnelRequestUrl(request?.url ?? String(input));
    if (!target || !stub) return errorJson("machine_unknown", "not a server of your machines");
    const method = (request?.method ?? init?.method ?? "GET").toUpperCase();
    // Method, headers and body only: the caller's abort signal does not cross to another object.
    const body = method === "GET" || method === "HEAD" ? null : request ? await request.text() : (init?.body as string | null | undefined);
    return stub.fetch(target, { method, headers: request?.headers ?? init?.headers, body });
  };
}
