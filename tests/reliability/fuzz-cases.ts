// Seeded generators for the bad-input fuzzer (bench/reliability/fuzz.ts runs them;
// tests/reliability/fuzz.test.ts runs a fast subset): WebSocket frames for a chat
// session with the oracle saying what the protocol (README, src/session/protocol.ts)
// promises each frame, and HTTP requests to the Worker and to the bridge with the
// statuses each may get. No fuzzing library: a mulberry32 PRNG, so a seed names one
// exact run.

import { MAX_TOOL_BODY_BYTES, tooDeep } from "../../src/shared/limits";

export const MAX_FRAME_BYTES = 64 * 1024;
const MAX_TEXT = 16_000;

export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Strings that have broken parsers before: empty, NUL, number-likes, emoji, RTL overrides, lone surrogates, keys of Object.prototype. */
export const ODD_STRINGS = [
  "", " ", "\u0000", "a\u0000b", "NaN", "-1", "-0", "Infinity", "1e309", "0x10", "null", "undefined", "true",
  "😀", "👩‍👩‍👧‍👦", "\u202Eevil\u202C", "שלום عالم", "\uD800", "\uDFFF", "\uFEFF", "\r\n", "\t", "\u200B",
  "%00", "%ZZ", "../..", "<script>alert(1)</script>", "${env:BRIDGE_TOKEN}", "' OR 1=1 --", "\\", '"', "{}", "[]",
  "__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "Ω≈ç√∫", "ｆｕｌｌ", "e\u0301\u0301\u0301",
];
export const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty"];
const NUMBERS = ["0", "-0", "-1", "1.5", "1e309", "-1e-400", "9007199254740993", "1E2", "123456789012345678901234567890"];
const RANGES: [number, number][] = [[0x20, 0x7e], [0x00, 0x1f], [0xa0, 0x24f], [0x590, 0x6ff], [0x4e00, 0x9fff], [0x1f600, 0x1f64f], [0xd800, 0xdfff], [0xfff0, 0xffff]];

export function randString(rng: Rng, max = 24): string {
  if (rng.chance(0.4)) return rng.pick(ODD_STRINGS);
  const [lo, hi] = rng.pick(RANGES);
  let s = "";
  for (let i = rng.int(max) + 1; i > 0; i--) s += String.fromCodePoint(lo + rng.int(hi - lo + 1));
  return s;
}

// JSON text builders: objects are written by hand so that `__proto__` keys and duplicate keys survive.
export const S = (s: string): string => JSON.stringify(s);
export type Pairs = [string, string][];
export const obj = (pairs: Pairs): string => `{${pairs.map(([k, v]) => `${S(k)}:${v}`).join(",")}}`;

export function deep(depth: number, kind: "array" | "object" | "open", leaf = "1"): string {
  if (kind === "array") return "[".repeat(depth) + leaf + "]".repeat(depth);
  if (kind === "object") return '{"a":'.repeat(depth) + leaf + "}".repeat(depth);
  return "[{".repeat(depth);
}

/** Any JSON value as text: strings, odd numbers, literals, arrays, objects with prototype keys, deep nesting. */
export function oddValue(rng: Rng, depth = 0): string {
  switch (rng.int(depth > 1 ? 4 : 7)) {
    case 0:
      return S(randString(rng));
    case 1:
      return rng.pick(NUMBERS);
    case 2:
      return rng.pick(["true", "false", "null"]);
    case 3:
      return S(rng.pick(["NaN", "-1", "Infinity", "0", "1e309", ""]));
    case 4:
      return `[${Array.from({ length: rng.int(4) }, () => oddValue(rng, depth + 1)).join(",")}]`;
    case 5:
      return obj(Array.from({ length: rng.int(4) }, (): [string, string] => [rng.chance(0.4) ? rng.pick(PROTO_KEYS) : randString(rng, 8), oddValue(rng, depth + 1)]));
    default:
      return deep(rng.pick([10, 100, 1000]), rng.pick(["array", "object"] as const));
  }
}

const randId = (rng: Rng): string => randString(rng, 40).slice(0, 128) || "x";
export const ODD_TEXTS = ["hello 😀", "\u202Eright-to-left\u202C override", "nul\u0000inside", "   padded   ", "שלום עולם", "-1", "NaN", "e\u0301\u0301 𝕏 \uD83D"];

/** A valid client message (never `reset`: the fuzzed history must only change through `message`). */
export function validPairs(rng: Rng, allowMessage: boolean): Pairs {
  switch (rng.int(allowMessage ? 5 : 4)) {
    case 0:
      return [["type", S("cancel")], ...(rng.chance(0.5) ? ([["turnId", S(randId(rng))]] as Pairs) : [])];
    case 1:
      return [["type", S("approval")], ["callId", S(randId(rng))], ["approved", rng.pick(["true", "false"])], ...(rng.chance(0.3) ? ([["remember", "true"]] as Pairs) : [])];
    case 2: {
      const content = obj([[randString(rng, 8), S(randString(rng))], [rng.pick(PROTO_KEYS), rng.pick(["1", "true", '["a"]', S("x")])]]);
      return [["type", S("elicitation_response")], ["requestId", S(randId(rng))], ["action", S(rng.pick(["accept", "decline", "cancel"]))], ...(rng.chance(0.6) ? ([["content", content]] as Pairs) : [])];
    }
    case 3:
      return [["type", S("set_servers")], ["enabled", `[${Array.from({ length: rng.int(4) }, () => S(rng.chance(0.5) ? "filesystem" : randString(rng, 20).slice(0, 64))).join(",")}]`]];
    default:
      return [["type", S("message")], ["text", S(rng.pick(ODD_TEXTS))]];
  }
}

export interface WsFrame {
  family: string;
  data: string | Buffer;
  binary: boolean;
}

const frame = (family: string, data: string | Buffer, binary = false): WsFrame => ({ family, data, binary });
const INVALID_UTF8 = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xfe, 0xfe, 0xff]];
const UNKNOWN_TYPES = ["Message", "MESSAGE", "message ", " reset", "cancel\u0000", "pong", "history", "entry", "error", "connection", "turn_start", "approval_request", "", "😀"];

/** Frame sizes in bytes, around and far beyond the 64 KiB limit. */
const SIZES = [60_000, 65_535, 65_536, 65_537, 70_000, 131_072, 1_048_577, 2_097_152];

function huge(rng: Rng): WsFrame {
  const pairs = validPairs(rng, false);
  const variant = rng.int(4);
  if (variant === 0) {
    // A frame of an exact byte size, padded with ASCII.
    const target = rng.pick(SIZES);
    const head = `${obj(pairs).slice(0, -1)},"pad":"`;
    return frame("huge", `${head}${"x".repeat(Math.max(0, target - Buffer.byteLength(head) - 2))}"}`);
  }
  if (variant === 1) {
    // Multi-byte padding: fewer UTF-16 units than bytes (the limit is in bytes).
    const char = rng.pick(["é", "中", "😀"]);
    const units = rng.pick([30_000, 40_000, 60_000]);
    return frame("huge", obj([...pairs, ["pad", S(char.repeat(Math.ceil(units / char.length)))]]));
  }
  if (variant === 2) {
    const text = rng.pick(["x".repeat(MAX_TEXT + 1), "😀".repeat(MAX_TEXT + 1), "中".repeat(MAX_TEXT + 1), `${" ".repeat(70_000)}`, "\u0000".repeat(MAX_TEXT + 1)]);
    return frame("huge", obj([["type", S("message")], ["text", S(text)]]));
  }
  return frame("huge", rng.pick(["x", "{", "[", '"']).repeat(rng.pick(SIZES)));
}

const INSERTS = ["{", "}", '"', ",", ":", "[", "]", "\\", "\u0000", ' "__proto__":{},'];
/** Bit flips, truncation, duplication (whole frame or a slice), deletion, structural characters, invalid UTF-8. */
const MUTATIONS: ((rng: Rng, b: Buffer, at: number) => Buffer)[] = [
  (rng, b, at) => (b.length > 0 ? Buffer.from(b).fill(b[Math.min(at, b.length - 1)]! ^ (1 << rng.int(8)), Math.min(at, b.length - 1), Math.min(at, b.length - 1) + 1) : b),
  (_rng, b, at) => b.subarray(0, at),
  (rng, b) => Buffer.concat([b, Buffer.from(rng.chance(0.5) ? "\n" : ""), b]),
  (rng, b, at) => Buffer.concat([b.subarray(0, at), b.subarray(Math.max(0, at - rng.int(12)), at), b.subarray(at)]),
  (rng, b, at) => Buffer.concat([b.subarray(0, at), b.subarray(at + rng.int(8) + 1)]),
  (rng, b, at) => Buffer.concat([b.subarray(0, at), Buffer.from(rng.pick(INSERTS)), b.subarray(at)]),
  (rng, b, at) => Buffer.concat([b.subarray(0, at), Buffer.from(rng.pick(INVALID_UTF8)), b.subarray(at)]),
];

export function mutate(rng: Rng, base: Buffer): Buffer {
  let b = base;
  for (let ops = rng.int(3) + 1; ops > 0; ops--) b = rng.pick(MUTATIONS)(rng, b, rng.int(b.length + 1));
  return b;
}

const FAMILIES = ["wrong-type", "unknown-kind", "missing-field", "extra-field", "huge", "deep", "invalid-utf8", "binary", "number-for-string", "proto-key", "absurd-value", "mutation", "mutation", "agents-sdk"] as const;

/** One frame of a random family. */
export function wsCase(rng: Rng): WsFrame {
  const family = rng.pick(FAMILIES);
  const pairs = validPairs(rng, rng.chance(0.02));
  switch (family) {
    case "wrong-type": {
      const i = rng.int(pairs.length);
      const odd = rng.chance(0.15) ? rng.pick(['{"toString":null}', '{"toString":1,"valueOf":1}', '["message"]', "null", "7"]) : oddValue(rng);
      pairs[i] = [pairs[i]?.[0] ?? "type", odd];
      return frame(family, obj(pairs));
    }
    case "unknown-kind":
      if (rng.chance(0.05)) return frame(family, rng.pick(['{"type":"ping"}', '{ "type": "ping" }', '{"type":"ping","t":1}']));
      return frame(family, obj([["type", S(rng.chance(0.5) ? rng.pick(UNKNOWN_TYPES) : randString(rng))], ...pairs.slice(1)]));
    case "missing-field":
      return frame(family, obj(pairs.filter(() => rng.chance(0.5))));
    case "extra-field":
      return frame(family, obj([...pairs, ...Array.from({ length: rng.int(4) + 1 }, (): [string, string] => [randString(rng, 12), oddValue(rng)])]));
    case "huge":
      return huge(rng);
    case "deep": {
      const depth = rng.pick([1_000, 10_000, 10_000, 100_000]);
      const kind = rng.pick(["array", "object", "open"] as const);
      const where = rng.int(4);
      if (where === 0) return frame(family, deep(depth, kind));
      if (where === 1) return frame(family, obj([["type", S("cancel")], ["x", deep(depth, kind)]]));
      if (where === 2) return frame(family, obj([["type", S("set_servers")], ["enabled", deep(depth, "array", S("filesystem"))]]));
      return frame(family, obj([["type", S("elicitation_response")], ["requestId", S("r")], ["action", S("accept")], ["content", deep(depth, kind)]]));
    }
    case "invalid-utf8": {
      const bad = Buffer.from(rng.pick(INVALID_UTF8));
      const text = obj(pairs);
      const at = rng.chance(0.5) ? text.lastIndexOf('"') : rng.int(text.length);
      return frame(family, Buffer.concat([Buffer.from(text.slice(0, at)), bad, Buffer.from(text.slice(at))]), rng.chance(0.3));
    }
    case "binary":
      return frame(family, rng.chance(0.5) ? Buffer.from(obj(pairs)) : Buffer.from(Array.from({ length: rng.pick([0, 1, 16, 2_000, 70_000]) }, () => rng.int(256))), true);
    case "number-for-string":
      return frame(family, obj(pairs.map(([k, v]): [string, string] => [k, v.startsWith('"') && rng.chance(0.7) ? rng.pick(NUMBERS) : v])));
    case "proto-key": {
      const key = rng.pick(PROTO_KEYS);
      const variants = [
        obj([[key, obj([["type", S("reset")]])]]),
        obj([...pairs, [key, obj([["type", S("reset")], ["polluted", "true"]])]]),
        obj([["type", S(key)]]),
        obj([["type", S("approval")], ["callId", S(key)], ["approved", "true"], ["remember", "true"]]),
        obj([["type", S("elicitation_response")], ["requestId", S(key)], ["action", S("accept")], ["content", obj([[key, '["a"]']])]]),
        obj([["type", S("set_servers")], ["enabled", `[${S(key)},${S("constructor")}]`]]),
        obj([["type", obj([[key, "null"]])]]),
      ];
      return frame(family, rng.pick(variants));
    }
    case "absurd-value":
      return frame(family, obj(pairs.map(([k, v]): [string, string] => [k, k !== "type" && v.startsWith('"') ? S(randString(rng, 128).slice(0, 128)) : v])));
    case "mutation": {
      const base = Buffer.from(rng.chance(0.8) ? obj(pairs) : obj(validPairs(rng, true)));
      return frame(family, mutate(rng, base), rng.chance(0.05));
    }
    case "agents-sdk": {
      const method = rng.pick(["deleteSession", "getHistory", "callTool", "setState", "destroy", "constructor", "__proto__", "toString", "nope"]);
      return frame(family, rng.pick([
        obj([["type", S("rpc")], ["id", S(String(rng.int(1000)))], ["method", S(method)], ["args", "[]"]]),
        obj([["type", S("cf_agent_state")], ["state", oddValue(rng)]]),
        obj([["type", S("cf_agent_mcp_servers")]]),
      ]));
    }
  }
}

export interface Expectation {
  /** Acceptable outcomes: `error:<code>` or `ok` (handled as a valid message, no error frame). */
  outcomes: string[];
  /** For a valid `message`: the text the history must then hold (trimmed, as stored). */
  text?: string;
  reset?: boolean;
}

const KNOWN = ["message", "cancel", "approval", "elicitation_response", "set_servers", "reset"];
/** zod measures string lengths in code points (README: "chars"); frames in bytes (README: "64 KiB"). */
const chars = (s: string) => [...s].length;
const isId = (v: unknown) => typeof v === "string" && chars(v) >= 1 && chars(v) <= 128;
const isBool = (v: unknown) => typeof v === "boolean";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const contentValue = (v: unknown) => typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) || isBool(v) || (Array.isArray(v) && v.every((x) => typeof x === "string"));

/** What the session must answer to a frame, by the documented protocol alone (independent of the server's parser). */
export function expectFor(f: WsFrame): Expectation {
  if (f.binary) return { outcomes: ["error:bad_frame"] };
  if (Buffer.byteLength(f.data) > MAX_FRAME_BYTES) return { outcomes: ["error:frame_too_large"] };
  // Text frames with invalid UTF-8 are decoded with U+FFFD replacements (WHATWG), as workerd does.
  const text = typeof f.data === "string" ? f.data : new TextDecoder().decode(f.data);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { outcomes: ["error:bad_json"] };
  }
  const bad = { outcomes: ["error:bad_message"] };
  if (!isRecord(data) || !Object.hasOwn(data, "type")) return bad;
  const d = data;
  if (typeof d.type !== "string") return { outcomes: ["error:unknown_type", "error:bad_message"] };
  // README: `ping` is a client message, answered `{"type":"pong"}` (whatever its spacing or extra fields).
  if (d.type === "ping") return { outcomes: ["pong"] };
  if (!KNOWN.includes(d.type)) return { outcomes: ["error:unknown_type"] };
  switch (d.type) {
    case "message": {
      const t = typeof d.text === "string" ? d.text.trim() : "";
      return chars(t) >= 1 && chars(t) <= MAX_TEXT ? { outcomes: ["ok", "error:turn_in_progress", "error:rate_limited"], text: t } : bad;
    }
    case "cancel":
      return d.turnId === undefined || isId(d.turnId) ? { outcomes: ["ok"] } : bad;
    case "approval":
      return isId(d.callId) && isBool(d.approved) && (d.remember === undefined || isBool(d.remember)) ? { outcomes: ["error:unknown_approval"] } : bad;
    case "elicitation_response": {
      const ok = isId(d.requestId) && ["accept", "decline", "cancel"].includes(d.action as string) && (d.content === undefined || (isRecord(d.content) && Object.values(d.content).every(contentValue)));
      return ok ? { outcomes: ["error:unknown_elicitation"] } : bad;
    }
    case "set_servers":
      return Array.isArray(d.enabled) && d.enabled.length <= 100 && d.enabled.every((s) => typeof s === "string" && chars(s) <= 64) ? { outcomes: ["ok"] } : bad;
    default:
      return { outcomes: ["ok"], reset: true };
  }
}

/** `count` frames for `seed`; frames the oracle calls a valid `reset` are replaced (it would clear the history). */
export function wsCases(seed: number, count: number): WsFrame[] {
  const rng = new Rng(seed);
  const out: WsFrame[] = [];
  while (out.length < count) {
    const f = wsCase(rng);
    if (!expectFor(f).reset) out.push(f);
  }
  return out;
}

// ---- HTTP ----

export interface HttpCase {
  family: string;
  target: "worker" | "bridge";
  method: string;
  /** Sent as-is (no URL normalisation). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Sent in pieces without a content-length (chunked). */
  chunked?: boolean;
  /** Statuses the documented API allows for this request; `codes`: the Worker's allowed error codes. */
  expect: number[];
  codes?: string[];
}

export interface HttpContext {
  fsRoot: string;
  /** Valid session ids requests may read (a small pool: each id is a Durable Object). */
  sessions: string[];
  /** Valid session ids tool calls may name (a direct call is recorded in that session's history). */
  toolSessions: string[];
  /** Valid ids that may be deleted. */
  junk: string[];
  token: string;
  /** An initialized MCP session on the bridge. */
  mcpSession: string;
}

export const WORKER_CODES = ["bad_json", "bad_request", "bad_tool_name", "approval_required", "tool_arguments", "tool_not_found", "server_unavailable", "circuit_open", "tool_timeout", "protocol", "bad_session_id", "upgrade_required", "not_found", "payload_too_large", "unsupported_media_type"];
const TOOL_CODES = WORKER_CODES.filter((c) => !["bad_json", "bad_request", "bad_tool_name", "unsupported_media_type"].includes(c));
/** A state-changing request with a body must say it is JSON (src/identity/same-origin.ts). */
const isJsonType = (contentType: string | undefined) => /^application\/json\s*(;|$)/i.test(contentType ?? "");
const bodyBytes = (body: string | Buffer | undefined) => (body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.length);
/** What a POST/PUT/PATCH/DELETE with `body` answers before any route: 415 unless the body is JSON-typed. */
function mediaGate(body: string | Buffer | undefined, contentType: string | undefined): Pick<HttpCase, "expect" | "codes"> | undefined {
  return bodyBytes(body) > 0 && !isJsonType(contentType) ? { expect: [415], codes: ["unsupported_media_type"] } : undefined;
}
const READ_TOOLS = ["list_directory", "read_text_file", "get_file_info", "directory_tree", "list_allowed_directories", "search_files"];
const CTYPES = ["application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=zz", "application/json; charset=utf-16", "application/xml", ""];
// No dot segments: a client normalises `/sessions/..` to `/` (the page's assets), so it never reaches a route.
const BAD_IDS = ["%ZZ", "%00", "a%2Fb", "a.b", "%F0%9F%98%80", "a".repeat(65), "%20", "a%00b", "~", "%E2%80%AE"];
/** Percent-encodes every UTF-8 byte but unreserved ones (lone surrogates become U+FFFD). */
const enc = (s: string) => [...Buffer.from(s)].map((b) => (/[\w.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`)).join("");

/** A path argument: always absolute (a relative one would make the filesystem server echo its cwd). */
function pathArg(rng: Rng, ctx: HttpContext): string {
  if (rng.chance(0.2)) return oddValue(rng);
  return S(rng.chance(0.2) ? rng.pick(["/etc/passwd", "/", "/proc/self/environ", ctx.fsRoot, `${ctx.fsRoot}/notes.txt`]) : `${ctx.fsRoot}/${randString(rng, 40)}`);
}

function toolArgs(rng: Rng, ctx: HttpContext, plain = false): string {
  const pairs: Pairs = [["path", pathArg(rng, ctx)]];
  if (plain) return obj(pairs);
  if (rng.chance(0.3)) pairs.push(["pattern", oddValue(rng)]);
  if (rng.chance(0.3)) pairs.push([rng.pick(PROTO_KEYS), oddValue(rng)]);
  if (rng.chance(0.1)) pairs.push(["deep", deep(rng.pick([100, 1_000, 10_000, 50_000]), rng.pick(["array", "object"] as const))]);
  if (rng.chance(0.05)) pairs.push(["huge", S("x".repeat(rng.pick([100_000, 1_000_000, 3_000_000])))]);
  return obj(pairs);
}

/** Expected answer to POST /api/tools/{a valid name} with `body`, from the documented request shape. */
function toolExpect(body: string | Buffer): Pick<HttpCase, "expect" | "codes"> {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  if (bytes.length > MAX_TOOL_BODY_BYTES) return { expect: [413], codes: ["payload_too_large"] };
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { expect: [400], codes: ["bad_json"] };
  }
  if (tooDeep(data)) return { expect: [400], codes: ["bad_request"] };
  const bad = { expect: [400], codes: ["bad_request"] };
  if (!isRecord(data)) return bad;
  if (data.arguments !== undefined && !isRecord(data.arguments)) return bad;
  if (data.approved !== undefined && !isBool(data.approved)) return bad;
  if (data.sessionId !== undefined && !(typeof data.sessionId === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(data.sessionId))) return bad;
  return { expect: [200, 400, 403, 404, 413, 502, 503, 504], codes: TOOL_CODES };
}

function toolBody(rng: Rng, ctx: HttpContext): string | Buffer {
  const pairs: Pairs = [["arguments", rng.chance(0.9) ? toolArgs(rng, ctx) : oddValue(rng)]];
  if (rng.chance(0.3)) pairs.push(["approved", rng.chance(0.5) ? "true" : oddValue(rng)]);
  if (rng.chance(0.3)) pairs.push(["sessionId", S(rng.chance(0.5) ? rng.pick(ctx.toolSessions) : randString(rng))]);
  if (rng.chance(0.2)) pairs.push([randString(rng, 8), oddValue(rng)]);
  const text = rng.chance(0.1) ? oddValue(rng) : obj(pairs);
  return rng.chance(0.25) ? mutate(rng, Buffer.from(text)) : text;
}

const TOOL_NAMES: [string, number[], string[]][] = [
  ["filesystem.nope", [404], ["tool_not_found"]], ["zzz.list_directory", [404], ["tool_not_found"]], ["filesystem.%00", [404], ["tool_not_found"]],
  ["filesystem.%F0%9F%98%80", [404], ["tool_not_found"]], ["filesystem", [400], ["bad_tool_name"]], [".list_directory", [400], ["bad_tool_name"]],
  ["%ZZ", [400], ["bad_tool_name"]], ["-x.y", [400], ["bad_tool_name"]], [`${"a".repeat(65)}.x`, [400], ["bad_tool_name"]], ["%E2%80%AE.x", [400], ["bad_tool_name"]],
  ["filesystem.list_directory%2F..", [404], ["tool_not_found"]], ["__proto__.constructor", [400], ["bad_tool_name"]], ["constructor.prototype", [404], ["tool_not_found"]],
];

export function workerCase(rng: Rng, ctx: HttpContext): HttpCase {
  const w = (family: string, method: string, path: string, expect: number[], codes?: string[], body?: string | Buffer, headers: Record<string, string> = {}): HttpCase =>
    ({ family, target: "worker", method, path, headers, body, expect, codes });
  const anyId = () => (rng.chance(0.5) ? rng.pick(ctx.sessions) : rng.pick(BAD_IDS));
  switch (rng.int(12)) {
    case 0: case 1: case 2: case 3: {
      const body = toolBody(rng, ctx);
      const contentType = rng.pick(CTYPES);
      const e = mediaGate(body, contentType) ?? toolExpect(body);
      return w("tool-body", "POST", `/api/tools/filesystem.${rng.pick(READ_TOOLS)}`, e.expect, e.codes, body, { "content-type": contentType });
    }
    case 4: {
      const [name, expect, codes] = rng.pick(TOOL_NAMES);
      const body = obj([["arguments", toolArgs(rng, ctx, true)]]);
      // A body nested too deep is refused before the tool name is looked at.
      const deep = (() => { try { return tooDeep(JSON.parse(body)); } catch { return false; } })();
      return w("tool-name", "POST", `/api/tools/${name}`, deep ? [400, ...expect] : expect, deep ? ["bad_request", ...codes] : codes, body, { "content-type": "application/json" });
    }
    case 5: {
      const body = rng.chance(0.5) ? oddValue(rng) : undefined;
      const contentType = rng.pick(CTYPES);
      const gate = mediaGate(body, contentType);
      return w("create-session", "POST", "/sessions", gate?.expect ?? [201], gate?.codes, body, { "content-type": contentType });
    }
    case 6: {
      const id = anyId();
      return w("history-id", "GET", `/sessions/${id}/history`, ctx.sessions.includes(id) ? [200] : [400], ctx.sessions.includes(id) ? undefined : ["bad_session_id"]);
    }
    case 7: {
      // The junk sessions are the caller's own (the setup opened them): deleting one, even twice, is 204.
      const id = rng.chance(0.5) ? rng.pick(ctx.junk) : rng.pick(BAD_IDS);
      return w("delete-id", "DELETE", `/sessions/${id}`, ctx.junk.includes(id) ? [204] : [400], ctx.junk.includes(id) ? undefined : ["bad_session_id"]);
    }
    case 8: {
      const id = anyId();
      const headers: Record<string, string> = rng.chance(0.5) ? { upgrade: rng.pick(["h2c", "websocket2", "", "WebSocket/13"]), connection: "upgrade" } : {};
      return w("ws-no-upgrade", "GET", `/sessions/${id}/ws`, ctx.sessions.includes(id) ? [426] : [400], ctx.sessions.includes(id) ? ["upgrade_required"] : ["bad_session_id"], undefined, headers);
    }
    case 9: {
      const q = rng.chance(0.5) ? rng.pick(ctx.sessions) : rng.pick([...BAD_IDS, enc(randString(rng))]);
      const repeated = rng.chance(0.2);
      // One of the caller's sessions answers; a malformed or repeated ?session= is 400, someone else's (or none) 404.
      const own = ctx.sessions.includes(q) && !repeated;
      return w("servers-query", "GET", `/api/${rng.pick(["servers", "metrics"])}?session=${q}${repeated ? "&session=x&session" : ""}`, own ? [200] : [400, 404], own ? undefined : ["bad_session_id", "not_found"]);
    }
    case 10: {
      const path = rng.pick(["/api/", "/api/tools", "/api/tools/", "/sessions/", "/sessions/x/y/z", "/api/health/x", `/fz-${enc(randString(rng))}`, `/api/${enc(randString(rng))}`, "/sessions/abc/history/x"]);
      const method = rng.pick(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);
      const body = rng.chance(0.5) ? oddValue(rng) : undefined;
      const gate = ["GET", "OPTIONS"].includes(method) ? undefined : mediaGate(body, undefined);
      return w("unknown-route", method, path, gate?.expect ?? [404], gate?.codes ?? ["not_found"], body);
    }
    default: {
      const [method, path] = rng.pick([["PUT", "/api/tools/filesystem.list_directory"], ["GET", "/api/tools/filesystem.list_directory"], ["DELETE", "/api/health"], ["PATCH", "/sessions/abc/history"], ["OPTIONS", "/sessions"], ["PUT", "/sessions"], ["POST", "/api/health"], ["POST", "/sessions/abc/history"], ["DELETE", "/api/servers"]]);
      const body = rng.chance(0.5) ? oddValue(rng) : undefined;
      const gate = ["GET", "OPTIONS"].includes(method ?? "") ? undefined : mediaGate(body, undefined);
      return w("odd-method", method ?? "GET", path ?? "/", gate?.expect ?? [404, 405], gate?.codes ?? ["not_found"], body);
    }
  }
}

function rpcMessage(rng: Rng, ctx: HttpContext): string {
  const id = rng.pick(["1", "0", "-1", S("a"), S("😀"), "9007199254740993", "1.5", "null", "{}", "[]", S("__proto__")]);
  const base: Pairs = [["jsonrpc", S(rng.chance(0.9) ? "2.0" : rng.pick(["1.0", "2", ""]))]];
  switch (rng.int(6)) {
    case 0: case 1: {
      const method = rng.pick(["tools/list", "ping", "resources/list", "prompts/list", "foo/bar", "", "rpc.discover", "logging/setLevel", "completion/complete", "tools/call", "tools/call"]);
      const params = method === "tools/call" ? obj([["name", S(rng.pick([...READ_TOOLS, "nope", ""]))], ["arguments", toolArgs(rng, ctx)]]) : rng.chance(0.5) ? oddValue(rng) : "{}";
      return obj([...base, ["id", id], ["method", S(method)], ["params", params]]);
    }
    case 2:
      return obj([...base, ["method", S(rng.pick(["notifications/cancelled", "notifications/initialized", "notifications/progress", "notifications/zz"]))], ["params", obj([["requestId", id], ["reason", S(randString(rng))]])]]);
    case 3:
      return obj([...base, ["id", id], rng.chance(0.5) ? ["result", oddValue(rng)] : ["error", obj([["code", rng.pick(["-32000", "1.5", S("x")])], ["message", oddValue(rng)]])]]);
    case 4:
      return obj([...base, ["id", id], ["method", oddValue(rng)], [rng.pick(PROTO_KEYS), oddValue(rng)]]);
    default:
      return oddValue(rng);
  }
}

/** A JSON-RPC body (one message, a batch, or a mutation) and what the bridge may answer. */
function rpcBody(rng: Rng, ctx: HttpContext, session: boolean): { body: string | Buffer; expect: number[] } {
  const one = () => rpcMessage(rng, ctx);
  let text = rng.chance(0.2) ? `[${Array.from({ length: rng.int(5) }, one).join(",")}]` : one();
  if (rng.chance(0.05)) text = `[${one()},${one().replace(/"id":[^,}]+/, '"id":7')},${one().replace(/"id":[^,}]+/, '"id":7')}]`;
  const body = rng.chance(0.2) ? mutate(rng, Buffer.from(text)) : text;
  try {
    JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    return { body, expect: [400] };
  }
  if (Buffer.byteLength(body) > 4 * 1024 * 1024) return { body, expect: [413] };
  return { body, expect: session ? [200, 202, 400] : [200, 400, 404] };
}

export function bridgeCase(rng: Rng, ctx: HttpContext): HttpCase {
  const auth = { authorization: `Bearer ${ctx.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const b = (family: string, method: string, path: string, expect: number[], body?: string | Buffer, headers: Record<string, string> = auth): HttpCase => ({ family, target: "bridge", method, path, headers, body, expect });
  const mcp = "/servers/filesystem/mcp";
  switch (rng.int(10)) {
    case 0: case 1: case 2: case 3: {
      const { body, expect } = rpcBody(rng, ctx, true);
      return b("rpc-in-session", "POST", mcp, expect, body, { ...auth, "mcp-session-id": ctx.mcpSession });
    }
    case 4: {
      const { body, expect } = rpcBody(rng, ctx, false);
      const headers = rng.chance(0.5) ? auth : { ...auth, "mcp-session-id": rng.pick(["x", "0", "a".repeat(500), "00000000-0000-0000-0000-000000000000", "__proto__"]) };
      return b("rpc-no-session", "POST", mcp, expect, body, headers);
    }
    case 5: {
      const { body } = rpcBody(rng, ctx, true);
      return b("legacy-messages", "POST", `/servers/filesystem/messages?sessionId=${enc(randString(rng))}`, [400, 404], body);
    }
    case 6: {
      const valid = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
      const [headers, expect] = rng.pick<[Record<string, string>, number[]]>([
        [{ ...auth, host: "evil.example:80" }, [403]], [{ ...auth, origin: "http://evil.example" }, [403]], [{ ...auth, origin: "null" }, [403]],
        [{ "content-type": "application/json" }, [401]], [{ ...auth, authorization: "Bearer wrong" }, [401]], [{ ...auth, authorization: `Basic ${ctx.token}` }, [401]],
        [{ ...auth, authorization: `Bearer ${ctx.token}x` }, [401]], [{ ...auth, authorization: `bearer ${ctx.token}` }, [401, 404]],
        [{ ...auth, "content-type": "text/plain" }, [415]], [{ authorization: auth.authorization }, [415]], [{ ...auth, "content-type": "APPLICATION/JSON" }, [404]],
        [{ ...auth, "mcp-session-id": ctx.mcpSession, accept: "text/html" }, [200]],
      ]);
      return b("odd-headers", "POST", mcp, expect, valid, headers);
    }
    case 7: {
      const [method, path, expect] = rng.pick<[string, string, number[]]>([
        ["PUT", mcp, [405]], ["PATCH", mcp, [405]], ["OPTIONS", mcp, [405]], ["GET", mcp, [405]], ["DELETE", mcp, [404]], ["POST", "/servers/filesystem/sse", [405]],
        ["POST", "/servers/%ZZ/mcp", [404]], ["POST", "/servers/zzz/mcp", [404]], ["POST", "/servers//mcp", [404]], ["POST", "/servers/filesystem/mcp/x", [404]],
        ["GET", "/", [404]], ["GET", "/metrics", [200]], ["GET", "/health", [200]], ["POST", "/servers/%2e%2e/mcp", [404]], ["GET", "/servers/%E0%A4%A/sse", [404]],
      ]);
      return b("odd-route", method, path, expect, method === "GET" ? undefined : "{}");
    }
    default: {
      const over = rng.chance(0.15);
      const body = over ? `"${"x".repeat(5 * 1024 * 1024)}"` : obj([["jsonrpc", S("2.0")], ["id", "1"], ["method", S("tools/call")], ["params", obj([["name", S("read_text_file")], ["arguments", deep(rng.pick([1_000, 10_000, 100_000]), "object")]])]]);
      return { ...b(over ? "over-limit" : "deep", "POST", mcp, over ? [413] : [200, 400], body, { ...auth, "mcp-session-id": ctx.mcpSession }), chunked: rng.chance(0.5) };
    }
  }
}

export function httpCases(seed: number, ctx: HttpContext, worker: number, bridge: number): HttpCase[] {
  const rng = new Rng(seed ^ 0x5eed);
  return [...Array.from({ length: worker }, () => workerCase(rng, ctx)), ...Array.from({ length: bridge }, () => bridgeCase(rng, ctx))];
}
