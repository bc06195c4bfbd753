// The audit record (src/audit/record.ts): canonical JSON a person can recompute, its
// size and SHA-256, and the schema that keeps contents out.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AuditRecordSchema, canonicalJson, digest, personKey, resultForDigest, type AuditRecord } from "../../src/audit/record";

const ARGS = { path: "notes/a.txt", content: "héllo ✓", opts: { z: 1, a: [3, { y: true, b: null }] } };

describe("canonicalJson", () => {
  it("sorts keys at every depth and writes no spaces", () => {
    expect(canonicalJson(ARGS)).toBe('{"content":"héllo ✓","opts":{"a":[3,{"b":null,"y":true}],"z":1},"path":"notes/a.txt"}');
  });

  it("does not depend on the order the keys were written in", () => {
    const reordered = { opts: { a: [3, { b: null, y: true }], z: 1 }, path: "notes/a.txt", content: "héllo ✓" };
    expect(canonicalJson(reordered)).toBe(canonicalJson(ARGS));
  });

  it("keeps array order, drops undefined members, and makes undefined itself null", () => {
    expect(canonicalJson({ b: [2, 1], a: undefined })).toBe('{"b":[2,1]}');
    expect(canonicalJson(undefined)).toBe("null");
  });

  it("keeps a key named __proto__ as a key", () => {
    const value = JSON.parse('{"z":1,"__proto__":{"x":1}}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"z":1}');
  });
});

describe("digest", () => {
  it("matches Python's json.dumps(sort_keys=True, separators=(',', ':'), ensure_ascii=False) hashed with SHA-256", () => {
    // Computed independently with Python's hashlib; the size is in UTF-8 bytes (é and ✓ are 2 and 3 bytes).
    expect(digest(ARGS)).toEqual({ bytes: 88, sha256: "37cd204a02990cde4b322c2277788f11045c30cb89b2d40c3e9a1cdb7b7e9cca" });
  });

  it("is the SHA-256 of the canonical JSON's UTF-8 bytes", () => {
    const value = { content: [{ type: "text", text: "ok" }], isError: false };
    const json = canonicalJson(value);
    expect(digest(value)).toEqual({ bytes: Buffer.byteLength(json), sha256: createHash("sha256").update(json).digest("hex") });
  });
});

describe("personKey", () => {
  it("is 12 hex of sha256(id), never the id itself", () => {
    const key = personKey("token:alice");
    expect(key).toMatch(/^[0-9a-f]{12}$/);
    expect(key).toBe(createHash("sha256").update("token:alice").digest("hex").slice(0, 12));
    expect(personKey("token:bob")).not.toBe(key);
  });
});

describe("AuditRecordSchema", () => {
  const record: AuditRecord = {
    v: 1,
    id: "chat-1:t1.0.0",
    at: 1_700_000_000_000,
    endedAt: 1_700_000_000_020,
    chat: "chat-1",
    turnId: "t1",
    server: "filesystem",
    tool: "write_file",
    askedBy: { kind: "model", person: { key: "abcdefabcdef", name: "alice" } },
    decision: { how: "rule", ruleId: "r1", ruleText: "filesystem.write_file when path is under notes/" },
    args: digest(ARGS),
    result: digest({ content: [] }),
    status: "ok",
    durationMs: 20,
  };

  it("accepts a full record", () => {
    expect(AuditRecordSchema.parse(record)).toEqual(record);
  });

  it("has no place for contents: arguments given as such are dropped", () => {
    const parsed = AuditRecordSchema.parse({ ...record, arguments: ARGS, args: { ...record.args, text: "héllo" } });
    expect(JSON.stringify(parsed)).not.toContain("héllo");
  });

  it("refuses an unknown decision, status or a malformed hash", () => {
    expect(AuditRecordSchema.safeParse({ ...record, decision: { how: "trusted" } }).success).toBe(false);
    expect(AuditRecordSchema.safeParse({ ...record, status: "fine" }).success).toBe(false);
    expect(AuditRecordSchema.safeParse({ ...record, args: { bytes: 1, sha256: "xyz" } }).success).toBe(false);
  });
});

describe("resultForDigest", () => {
  it("drops only the protocol's per-hop _meta keys", () => {
    const hop = { "io.modelcontextprotocol/serverInfo": { name: "fs", version: "1" } };
    expect(resultForDigest({ content: [], _meta: hop })).toEqual({ content: [] });
    expect(resultForDigest({ content: [], _meta: { ...hop, mine: 1 } })).toEqual({ content: [], _meta: { mine: 1 } });
    expect(resultForDigest({ content: [] })).toEqual({ content: [] });
  });
});
