// The audit trail's record (v1): one per tool call that reached a decision, saying who
// asked, who decided and how, and what went in and came out only as sizes and SHA-256
// hashes, never contents. The hash is of canonical JSON (keys sorted recursively, no
// spaces), so a person holding the arguments or the result can recompute it (docs/audit.md).
import { createHash } from "node:crypto";
import { z } from "zod";

/** A person as the trail names them: the page-visible handle (never the identity's id) and their name. */
export const AuditPersonSchema = z.object({ key: z.string().max(64), name: z.string().max(320) });
export type AuditPerson = z.infer<typeof AuditPersonSchema>;

export const ASKED_BY_KINDS = ["model", "person", "schedule", "app", "mcp_client"] as const;
export const DECISION_HOWS = ["policy_off", "config", "pre_granted", "always", "rule", "asked"] as const;
export const DECISION_ANSWERS = ["allowed", "denied", "timed_out", "cancelled"] as const;
export const AUDIT_STATUSES = ["ok", "tool_error", "error", "denied", "cancelled", "timeout"] as const;

/** Size and SHA-256 (hex) of a value's canonical JSON. */
export const DigestSchema = z.object({ bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
export type Digest = z.infer<typeof DigestSchema>;

export const AuditRecordSchema = z.object({
  v: z.literal(1),
  /** `<chat>:<callId>`: the same call recorded twice (a re-flush) stays one row. */
  id: z.string().min(1).max(400),
  at: z.number().int(),
  endedAt: z.number().int(),
  chat: z.string().max(200),
  turnId: z.string().max(200).nullable(),
  server: z.string().max(200),
  tool: z.string().max(200),
  askedBy: z.object({
    kind: z.enum(ASKED_BY_KINDS),
    /** model: who sent the turn's message; person: who used the tool console. */
    person: AuditPersonSchema.optional(),
    scheduleId: z.string().max(200).optional(),
    /** mcp_client: which connected app called through /mcp (its app id and the name it registered). */
    client: z.object({ id: z.string().max(200), name: z.string().max(320) }).optional(),
  }),
  decision: z.object({
    how: z.enum(DECISION_HOWS),
    answer: z.enum(DECISION_ANSWERS).optional(),
    by: AuditPersonSchema.optional(),
    via: z.enum(["page", "notification", "client"]).optional(),
    ruleId: z.string().max(200).optional(),
    ruleText: z.string().max(1000).optional(),
  }),
  args: DigestSchema,
  result: DigestSchema.optional(),
  status: z.enum(AUDIT_STATUSES),
  errorCode: z.string().max(100).optional(),
  durationMs: z.number().int().nonnegative(),
});
export type AuditRecord = z.infer<typeof AuditRecordSchema>;
export type AskedBy = AuditRecord["askedBy"];
export type AuditDecision = AuditRecord["decision"];
export type AuditStatus = AuditRecord["status"];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * JSON with every object's keys sorted (JavaScript's default sort: by UTF-16 code units) at
 * every depth and no whitespace; otherwise exactly JSON.stringify (undefined members dropped,
 * non-finite numbers null). `undefined` itself is "null", so every call has arguments to hash.
 */
export function canonicalJson(value: unknown): string {
  const sorted = JSON.stringify(value, (_key, v: unknown) => {
    if (!isPlainObject(v)) return v;
    const out: Record<string, unknown> = {};
    // defineProperty: a key named "__proto__" stays a key, not the prototype.
    for (const key of Object.keys(v).sort()) Object.defineProperty(out, key, { value: v[key], enumerable: true, writable: true, configurable: true });
    return out;
  });
  return sorted ?? "null";
}

/** UTF-8 size and SHA-256 (hex) of the value's canonical JSON: synchronous (node:crypto), so a row is made in the same tick as the call's entry. */
export function digest(value: unknown): Digest {
  const bytes = new TextEncoder().encode(canonicalJson(value));
  return { bytes: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/**
 * A tool's result as the trail hashes it: as the server sent it, less the protocol's own
 * per-hop `_meta` keys (`io.modelcontextprotocol/…`, such as the server's name and version that
 * a bridge adds), so the result a person holds (the tool console's answer) hashes the same.
 */
export function resultForDigest(result: unknown): unknown {
  if (typeof result !== "object" || result === null || !("_meta" in result)) return result;
  const { _meta: meta, ...rest } = result as { _meta?: unknown } & Record<string, unknown>;
  if (typeof meta !== "object" || meta === null) return result;
  const kept = Object.entries(meta).filter(([key]) => !key.startsWith("io.modelcontextprotocol/"));
  return kept.length > 0 ? { ...rest, _meta: Object.fromEntries(kept) } : rest;
}

/** The page-visible handle of a user: the first 12 hex of sha256(their id), so ids never leave the Worker. */
export function personKey(userId: string): string {
  return createHash("sha256").update(userId, "utf8").digest("hex").slice(0, 12);
}

/** A short form of a hash for a table cell (the full one is in the export). */
export const shortHash = (sha256: string): string => sha256.slice(0, 12);
