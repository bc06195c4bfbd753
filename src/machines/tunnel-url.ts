// How a session names a server on a paired machine, and the path the user's account
// serves it at. A session's MCP client talks Streamable HTTP to
// `https://{machineId}.machine.invalid/servers/{server}/mcp` (an address nothing on the
// internet answers: `.invalid` is reserved); its fetch is bound to the owner's account
// object, which relays the request to the machine (relay.ts).
const HOST_SUFFIX = ".machine.invalid";
/** Machine ids are lower-case hex (credentials.ts), valid as a host name label. */
const MACHINE_ID = /^[0-9a-f]{12}$/;

export function machineServerUrl(machineId: string, server: string): string {
  return `https://${machineId}${HOST_SUFFIX}/servers/${encodeURIComponent(server)}/mcp`;
}

/** The machine a session's server URL points at, or undefined for any other URL. */
export function machineOfUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!parsed.hostname.endsWith(HOST_SUFFIX)) return undefined;
  const id = parsed.hostname.slice(0, -HOST_SUFFIX.length);
  return MACHINE_ID.test(id) ? id : undefined;
}

/** The account's path for a session's request: `/tunnel/{machineId}{path}`. */
export function tunnelRequestUrl(url: string): string | undefined {
  const machineId = machineOfUrl(url);
  if (!machineId) return undefined;
  const parsed = new URL(url);
  return `https://account/tunnel/${machineId}${parsed.pathname}${parsed.search}`;
}

/** The machine and the bridge path of a tunnelled request, as the account receives it. */
export function machineTunnelPath(url: URL): { machineId: string; path: string } | undefined {
  const match = /^\/tunnel\/([0-9a-f]{12})(\/servers\/[^/]+\/mcp)$/.exec(url.pathname);
  if (!match) return undefined;
  return { machineId: match[1] as string, path: `${match[2]}${url.search}` };
}
