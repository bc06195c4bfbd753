// Whose request the bridge carries. The Worker names the user of each MCP session in
// `X-Edgehost-User` (trusted only because the request also carried the bridge token,
// which only the Worker holds); a plain local client sends none and is user "". A
// session belongs to the user who initialized it. A request a shared child makes of
// its client (sampling, elicitation, roots) goes only to the user whose call is in
// flight on that child: with calls of several users in flight it is refused, and with
// none it reaches only a single user's sessions, never several users'.
import type { IncomingMessage } from "node:http";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";

/** A session as routing needs it (proxy.ts Downstream). */
interface Owned {
  readonly user: string;
}

export const USER_HEADER = "x-edgehost-user";
const MAX_USER_CHARS = 320;

/** The user a request is for ("" for none); undefined when the header is not a plausible user id. */
export function requestUser(req: IncomingMessage): string | undefined {
  const raw = req.headers[USER_HEADER];
  if (raw === undefined) return "";
  if (Array.isArray(raw) || raw.length > MAX_USER_CHARS || /[\u0000-\u001f\u007f]/.test(raw)) return undefined;
  return raw;
}

export type ServerRequestRoute<S> = { to: S[]; related?: RequestId } | { refused: string };

/**
 * Where a child's request goes. `capable`: sessions that declared the capability; `inFlight`:
 * the calls running on the child, oldest first (stdio says nothing of which one caused it).
 */
export function routeServerRequest<S extends Owned>(capable: readonly S[], inFlight: readonly { session: S; id: RequestId }[]): ServerRequestRoute<S> {
  const running = inFlight.filter((call) => capable.includes(call.session));
  const users = new Set(running.map((call) => call.session.user));
  if (users.size > 1) return { refused: "calls of several users are running on this server: a request from it cannot be given to one of them (use \"isolation\": \"user\" in mcp.json)" };
  const cause = running[0];
  if (cause) return { to: [cause.session], related: cause.id };
  const idle = new Set(capable.map((session) => session.user));
  if (idle.size > 1) return { refused: "no call is running on this server, and its sessions belong to several users: the request cannot be given to one of them" };
  return { to: [...capable] };
}
