// The session's side of the audit trail: each tool call that reached a decision (the
// model's, the tool console's, an MCP App's) becomes a record (src/audit/record.ts) hashed
// at once and written to this chat's outbox in the same tick as the call's history entry
// (one commit, nothing added to the turn's path). The outbox goes to the owner's account
// (src/users/audit-log.ts) at most every FLUSH_GAP_MS and after each turn; a failed send
// keeps the rows for the next one (the account ignores rows it has).
import { type AskedBy, type AuditRecord, digest, personKey, resultForDigest } from "../audit/record";
import type { ApprovalDecision, CallAudit } from "../orchestrator/transcript";
import type { DecisionKind } from "../ops/reports";

/** The operator's kind of a decision: asked ones by their answer, the rest by how. */
export function decisionKind(decision: ApprovalDecision): DecisionKind {
  if (decision.how !== "asked") return decision.how;
  switch (decision.answer) {
    case "allowed":
      return "asked_allowed";
    case "timed_out":
      return "timed_out";
    case "cancelled":
      return "cancelled";
    default:
      return "asked_denied";
  }
}

export const FLUSH_GAP_MS = 2_000;
/** Rows sent in one call to the account. */
const FLUSH_BATCH = 200;

/** A call as the session hands it over: which turn (null for the console or an app) and who asked. */
export interface AuditedCall extends CallAudit {
  turnId: string | null;
  askedBy: AskedBy;
}

export interface AuditSinkDeps {
  sql: SqlStorage;
  chat: () => string;
  owner: () => { id: string; name: string } | undefined;
  /** AUDIT_RETENTION_DAYS: 0 turns recording off. */
  retentionDays: () => number;
  /** Counts the call's kind of decision for the operator (operations-report.ts): the kind only. */
  decided?: (kind: DecisionKind) => void;
  /** Hands rows to the owner's account. */
  deliver: (ownerId: string, records: AuditRecord[], retentionDays: number) => Promise<unknown>;
  waitUntil: (work: Promise<unknown>) => void;
}

export class AuditSink {
  private tableReady = false;
  private timer?: ReturnType<typeof setTimeout>;
  private lastSent = 0;
  private sending?: Promise<void>;

  constructor(private readonly deps: AuditSinkDeps) {}

  /** Records one call: synchronous (hashing included), so it commits with the entry written in the same tick. */
  add(call: AuditedCall): void {
    this.deps.decided?.(decisionKind(call.decision));
    if (this.deps.retentionDays() <= 0) return;
    const record = this.record(call);
    this.table().exec("INSERT OR REPLACE INTO audit_outbox (id, at, record) VALUES (?, ?, ?)", record.id, record.at, JSON.stringify(record));
    this.flushSoon();
  }

  /** Sends the outbox within FLUSH_GAP_MS of the last send (at once if that long has passed). */
  flushSoon(): void {
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastSent + FLUSH_GAP_MS - Date.now());
    // The object stays up until the rows went (an evicted one sends them at its next wake).
    this.deps.waitUntil(
      new Promise<void>((resolve) => {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          void this.flush().finally(resolve);
        }, wait);
      }),
    );
  }

  /** Sends what the outbox holds; rows the account took are deleted here. */
  async flush(): Promise<void> {
    if (this.sending) return this.sending;
    this.sending = this.send().finally(() => {
      this.sending = undefined;
    });
    return this.sending;
  }

  /** Rows not yet sent (tests, and a wake that finds some left). */
  pending(): number {
    return this.table().exec<{ n: number }>("SELECT count(*) AS n FROM audit_outbox").one().n;
  }

  private async send(): Promise<void> {
    const owner = this.deps.owner();
    if (!owner) return;
    this.lastSent = Date.now();
    const rows = this.table().exec<{ id: string; record: string }>("SELECT id, record FROM audit_outbox ORDER BY at LIMIT ?", FLUSH_BATCH).toArray();
    if (rows.length === 0) return;
    try {
      await this.deps.deliver(
        owner.id,
        rows.map((r) => JSON.parse(r.record) as AuditRecord),
        this.deps.retentionDays(),
      );
    } catch {
      return; // kept for the next flush
    }
    for (const row of rows) this.table().exec("DELETE FROM audit_outbox WHERE id = ?", row.id);
    if (rows.length === FLUSH_BATCH) this.flushSoon();
  }

  private record(call: AuditedCall): AuditRecord {
    const owner = this.deps.owner();
    const ownerPerson = owner ? { key: personKey(owner.id), name: owner.name } : undefined;
    // Until a chat has other people in it, the person behind a model's turn or a console call is its owner.
    const person = call.askedBy.kind === "model" || call.askedBy.kind === "person" ? (call.askedBy.person ?? ownerPerson) : call.askedBy.person;
    const { decision } = call;
    const answered = decision.how === "asked" && (decision.answer === "allowed" || decision.answer === "denied");
    const chat = this.deps.chat();
    return {
      v: 1,
      id: `${chat}:${call.callId}`,
      at: call.at,
      endedAt: call.endedAt,
      chat,
      turnId: call.turnId,
      server: call.server,
      tool: call.tool,
      askedBy: {
        kind: call.askedBy.kind,
        ...(person ? { person } : {}),
        ...(call.askedBy.scheduleId ? { scheduleId: call.askedBy.scheduleId } : {}),
        ...(call.askedBy.client ? { client: call.askedBy.client } : {}),
      },
      decision: {
        how: decision.how,
        ...(decision.answer ? { answer: decision.answer } : {}),
        // Who answered: the approver a shared chat's page named, else the owner (only they answer a chat that is theirs alone).
        ...(answered && (decision.by ?? ownerPerson) ? { by: decision.by ?? ownerPerson } : {}),
        ...(answered && decision.via ? { via: decision.via } : {}),
        ...(decision.ruleId ? { ruleId: decision.ruleId } : {}),
        ...(decision.ruleText ? { ruleText: decision.ruleText } : {}),
      },
      args: digest(call.arguments),
      ...(call.result !== undefined ? { result: digest(resultForDigest(call.result)) } : {}),
      status: call.status,
      ...(call.errorCode ? { errorCode: call.errorCode } : {}),
      durationMs: Math.max(0, Math.round(call.durationMs)),
    };
  }

  private table(): SqlStorage {
    if (!this.tableReady) {
      this.deps.sql.exec("CREATE TABLE IF NOT EXISTS audit_outbox (id TEXT PRIMARY KEY, at INTEGER NOT NULL, record TEXT NOT NULL)");
      this.tableReady = true;
    }
    return this.deps.sql;
  }
}
