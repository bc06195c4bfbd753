// The audit trail's row for one tools/call at /mcp (docs/audit.md): asked by the person's
// connected app (`mcp_client`, naming which app), decided as the call gate decided (policy,
// config, always, a rule, or asked: through the client or in the person's page), with the
// same sizes and hashes, status and timing as a chat's rows. Written to the app object's own
// outbox (the session's AuditSink over the app's storage) and sent to the person's account,
// under the chat id `app:<appId>` that /admin already names the app's calls by.
import type { AuditStatus } from "../audit/record";
import type { AuditSink } from "../session/audit-sink";
import type { ApprovalDecision } from "../orchestrator/transcript";
import type { Flight } from "./upstream-questions";

/** A call that reached a decision: what the row needs besides how it ended. */
export interface DecidedCall {
  callId: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  decision: ApprovalDecision;
  /** When the client first asked (before any approval). */
  at: number;
  /** When the upstream call started (undefined: it never did). */
  ranAt?: number;
}

/** The call a flight runs: a retry that answers an upstream question finds its decision here. */
const byFlight = new WeakMap<Flight, DecidedCall>();

export function noteFlight(flight: Flight, call: DecidedCall): void {
  byFlight.set(flight, call);
}

export function flightCall(flight: Flight): DecidedCall | undefined {
  return byFlight.get(flight);
}

export interface CallEndNote {
  status: AuditStatus;
  result?: unknown;
  errorCode?: string;
}

/** The owner and app a row names as the asker. */
export interface GatewayAsker {
  person: { key: string; name: string };
  client: { id: string; name: string };
}

/** Writes the row (hashed at once; the arguments and result are dropped here). */
export function recordCall(sink: AuditSink, asker: GatewayAsker, call: DecidedCall, end: CallEndNote): void {
  const endedAt = Date.now();
  sink.add({
    callId: call.callId,
    server: call.server,
    tool: call.tool,
    arguments: call.args,
    decision: call.decision,
    turnId: null,
    askedBy: { kind: "mcp_client", person: asker.person, client: asker.client },
    at: call.at,
    endedAt,
    durationMs: call.ranAt === undefined ? 0 : endedAt - call.ranAt,
    status: end.status,
    ...(end.result !== undefined ? { result: end.result } : {}),
    ...(end.errorCode ? { errorCode: end.errorCode } : {}),
  });
}
