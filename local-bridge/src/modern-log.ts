// Log lines (`notifications/message`) for MCP 2026-07-28 requests. The revision has no
// session-wide `logging/setLevel`: a request asks for logs with a level in its `_meta`
// (`io.modelcontextprotocol/logLevel`) and gets them on its own response stream only.
// The 2025 child logs to its one session (the bridge), and stdio does not say which call
// a line came from, so a line is taken as the output of the calls in flight when it
// arrives — and, as for the child's requests (user-scope.ts), only when those calls are
// one user's: a shared child's line never reaches another user's request. A line may carry
// a user's data (arguments, file names, results), so 2025 sessions follow the same rule
// (`lineOwner`, used by proxy.ts): one place decides who may read a child's line.
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";

/** Syslog order, least severe first (RFC 5424 as the MCP logging utility uses it). */
const SEVERITY = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

/** Whether a line at `level` is at or above the `threshold` a request asked for; a line with no known level cannot be and is dropped. */
export function atOrAbove(level: unknown, threshold: string): boolean {
  const line = SEVERITY.indexOf(level as (typeof SEVERITY)[number]);
  const wanted = SEVERITY.indexOf(threshold as (typeof SEVERITY)[number]);
  return line >= 0 && wanted >= 0 && line >= wanted;
}

/**
 * The one user who may read a child's log line: the owner of a per-user child (`owner` set),
 * else the user of every call in flight; undefined with no call in flight or calls of
 * several users (stdio does not say whose the line is, so nobody gets it).
 */
export function lineOwner(inFlight: readonly { session: { readonly user: string } }[], owner?: string): string | undefined {
  if (owner !== undefined) return owner;
  const users = new Set(inFlight.map((call) => call.session.user));
  return users.size === 1 ? [...users][0] : undefined;
}

/** The calls in flight a child's log line may go to: all of them when `lineOwner` names a user, else none. */
export function logRecipients<S extends { readonly user: string }>(
  inFlight: readonly { session: S; id: RequestId }[],
  owner?: string,
): { session: S; id: RequestId }[] {
  return lineOwner(inFlight, owner) === undefined ? [] : [...inFlight];
}
