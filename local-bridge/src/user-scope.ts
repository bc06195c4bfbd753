// Whose request the bridge carries. The Worker names the user of each MCP session in
// `X-Edgehost-User` (trusted only because the request also carried the bridge token,
// which only the Worker holds); a plain local client sends none and is user "". A
// session belongs to the user who initialized it. A request a shared child makes of
// its client (sampling, elicitation, roots) goes only to the user whose call is in
// flight on that child. Stdio says nothing of which call caused it, so it is refused
// whenever that is not one user: calls of several users running, no call running (it
// may come from a call that just ended), or the running call's session cannot take it
// (never handed to someone else's instead). Only local clients keep the old behaviour
// among themselves, and a per-user child (`"isolation": "user"`) has one user anyway.
import type { IncomingMessage } from "node:http";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";

/** A session as routing needs it (proxy.ts Downstream). */
interface Owned {
  readonly user: string;
}

export const USER_HEADER = "x-edgehost-user";
const MAX_USER_CHARS = 320;

/** The user a request is for ("" for none); undefined when the header is not a plausible user id. */
export function requestUser(req: Pick<IncomingMessage, "headers">): string | undefined {
  const raw = req.headers[USER_HEADER];
  if (raw === undefined) return "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a user name with control characters is refused
  if (Array.isArray(raw) || raw.length > MAX_USER_CHARS || /[\u0000-\u001f\u007f]/.test(raw)) return undefined;
  return raw;
}

export type ServerRequestRoute<S> = { to: S[]; related?: RequestId } | { refused: string };

/**
 * Where a child's request goes. `capable`: sessions that declared the capability; `inFlight`:
 * every call running on the child, oldest first; `owner`: the user of a per-user child.
 */
export function routeServerRequest<S extends Owned>(
  capable: readonly S[],
  inFlight: readonly { session: S; id: RequestId }[],
  owner?: string,
): ServerRequestRoute<S> {
  const users = new Set(inFlight.map((call) => call.session.user));
  // A per-user child: every session is its user's, so the request cannot leave them.
  if (owner === undefined && users.size > 1)
    return {
      refused: 'calls of several users are running on this server: a request from it cannot be given to one of them (use "isolation": "user" in mcp.json)',
    };
  const cause = inFlight.find((call) => capable.includes(call.session));
  if (cause) return { to: [cause.session], related: cause.id };
  const [user] = users;
  if (owner === undefined && user !== undefined && user !== "")
    return { refused: "the session whose call is running on this server cannot take this request, and no other user's session may" };
  if (owner === undefined && user === undefined && capable.some((session) => session.user !== "")) {
    return { refused: 'no call is running on this server, so nothing says which user a request from it is for (use "isolation": "user" in mcp.json)' };
  }
  // A local client's call, or nobody's: local sessions only, as before users existed.
  return { to: owner === undefined ? capable.filter((session) => session.user === "") : [...capable] };
}
