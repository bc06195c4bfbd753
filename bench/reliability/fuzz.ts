// Bad-input fuzzer of the reliability suite: seeded frames and requests from
// tests/reliability/fuzz-cases.ts against the whole stack (wrangler dev + bridge +
// server-filesystem + fake Gemini in auto mode). Each WebSocket frame is followed by
// a barrier frame (`{"type":"fzb-N"}`, answered `unknown_type`), so whatever arrives
// in between is that frame's answer; the oracle says which answers are allowed.
// Meanwhile a second session runs normal turns, and HTTP requests go to the Worker
// and the bridge. `runFuzz` is shared with tests/reliability/fuzz.test.ts.
// Run: npx tsx bench/reliability/fuzz.ts [--frames 10000] [--http 3000] [--seed N]
import { writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import WebSocket from "ws";
import { ServerMessageSchema, type HistoryEntry, type ServerMessage } from "../../src/protocol/messages";
import { startStack, type Stack } from "../../tests/fixtures/stack";
import { expectFor, httpCases, ODD_TEXTS, WORKER_CODES, wsCases, type HttpCase, type HttpContext } from "../../tests/reliability/fuzz-cases";
import { recordRow } from "../../tests/reliability/record";

export interface FuzzOptions { frames: number; workerHttp: number; bridgeHttp: number; seed: number; window?: number; log?: (line: string) => void }
export interface FuzzCheck { scenario: string; done: string; figure: string; pass: boolean; problems: string[] }
export interface FuzzReport { checks: FuzzCheck[]; wsOutcomes: Record<string, number>; wsMismatches: Record<string, number>; httpOutcomes: Record<string, number>; httpMismatches: Record<string, number>; ms: number }
export const SCENARIOS = ["every WebSocket frame gets a typed answer", "the fuzzed socket stays open", "only protocol frames come back", "a second session's turns are undisturbed", "history changes only through valid messages", "Worker HTTP: JSON with a stable error code", "bridge HTTP: JSON-RPC answers", "no stack trace or internal path anywhere", "bridge: a request id already in flight is still answered", "bridge: an 11 MiB tool result does not take the bridge down"] as const;

/** A stack trace, an uncaught error, or a path inside the install (never the user's temp folders). */
export const LEAK = /Uncaught|\bat \S.*:\d+:\d+\)?$|\/work\/|node_modules/m;
const EVENTS = new Set(["connection", "history", "entry", "text", "status", "approval_request", "approval_resolved", "elicitation_request", "elicitation_resolved", "servers", "turn_start", "turn_end"]);
const count = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1);
const clip = (s: string, n = 160) => JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s);

/** One session socket: every frame checked against protocol.ts and for leaks; listeners see each message. */
class Sock {
  readonly invalid: string[] = [];
  readonly leaks: string[] = [];
  readonly entries = new Map<number, HistoryEntry>();
  readonly openTurns = new Set<string>();
  readonly listeners = new Set<(m: ServerMessage | { type: string; raw: string }) => void>();
  closed = false;
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data, binary) => this.onFrame((data as Buffer).toString("utf8"), binary));
    ws.on("error", () => {}); // a close follows; open() reports connection errors
    ws.on("close", () => {
      this.closed = true;
      for (const l of [...this.listeners]) l({ type: "__closed", raw: "" });
    });
  }
  static open(url: string, id: string): Promise<Sock> {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/sessions/${id}/ws`, { perMessageDeflate: false });
    const sock = new Sock(ws);
    const ready = sock.waitFor((m) => m.type === "servers" && m.servers.every((s) => s.state === "ready"), 30_000);
    return new Promise((resolve, reject) => {
      ws.once("error", reject);
      ready.then(() => resolve(sock), reject);
    });
  }
  send(data: string | Buffer, binary = false): void {
    if (!this.closed) this.ws.send(data, { binary });
  }
  close(): void {
    this.ws.terminate();
  }
  waitFor<T extends ServerMessage>(pred: (m: ServerMessage) => m is T, timeoutMs: number): Promise<T>;
  waitFor(pred: (m: ServerMessage) => boolean, timeoutMs: number): Promise<ServerMessage>;
  waitFor(pred: (m: ServerMessage) => boolean, timeoutMs: number): Promise<ServerMessage> {
    return new Promise((resolve, reject) => {
      const done = (error?: Error, m?: ServerMessage) => {
        clearTimeout(timer);
        this.listeners.delete(l);
        if (m) resolve(m);
        else reject(error);
      };
      const l = (m: ServerMessage | { type: string; raw: string }) => {
        if (m.type === "__closed") done(new Error("socket closed"));
        else if (!("raw" in m) && pred(m)) done(undefined, m);
      };
      const timer = setTimeout(() => done(new Error(`no matching frame within ${timeoutMs} ms`)), timeoutMs);
      this.listeners.add(l);
    });
  }
  private onFrame(text: string, binary: boolean): void {
    if (LEAK.test(text)) this.leaks.push(clip(text));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (binary) return void this.invalid.push(`binary ${clip(text)}`);
    if (text === '{"type":"pong"}') {
      for (const l of [...this.listeners]) l({ type: "pong", raw: text });
      return;
    }
    const parsed = ServerMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.invalid.push(clip(text));
      const type = typeof (json as { type?: unknown })?.type === "string" ? (json as { type: string }).type : "unparsable";
      for (const l of [...this.listeners]) l({ type: `foreign:${type}`, raw: text });
      return;
    }
    const m = parsed.data;
    if (m.type === "entry") this.entries.set(m.entry.seq, m.entry);
    if (m.type === "turn_start") this.openTurns.add(m.turnId);
    if (m.type === "turn_end") this.openTurns.delete(m.turnId);
    for (const l of [...this.listeners]) l(m);
  }
}

/** One normal turn: sent → turn_end; a problem string when anything was off. */
async function normalTurn(sock: Sock, text: string): Promise<{ ms: number; problem?: string }> {
  const started = performance.now();
  const seen: string[] = [];
  let turnId: string | undefined;
  let toolDone = false;
  const watch = (m: ServerMessage | { type: string; raw: string }) => {
    if ("raw" in m) return void seen.push(m.type);
    if (m.type === "entry" && m.entry.kind === "user" && m.entry.text === text) turnId = m.entry.turnId ?? undefined;
    if (m.type === "error") seen.push(`error ${m.code}: ${m.message}`);
    if (m.type === "status" && m.turnId === turnId && m.state === "complete") toolDone = true;
    if (m.type === "status" && m.turnId === turnId && m.state === "error") seen.push(`tool error ${m.error ?? ""}`);
  };
  sock.listeners.add(watch);
  try {
    sock.send(JSON.stringify({ type: "message", text }));
    const end = await sock.waitFor((m): m is Extract<ServerMessage, { type: "turn_end" }> => m.type === "turn_end" && m.turnId === turnId, 30_000);
    if (end.reason !== "complete") seen.push(`turn_end ${end.reason}`);
    if (!toolDone) seen.push("no tool call completed");
  } catch (error) {
    seen.push((error as Error).message);
  } finally {
    sock.listeners.delete(watch);
  }
  return { ms: performance.now() - started, problem: seen.length > 0 ? `${text}: ${seen.join("; ")}` : undefined };
}

interface WsRun { outcomes: Record<string, number>; kinds: Record<string, number>; mismatches: string[]; closes: number; texts: Set<string>; socks: Sock[] }

/** Sends every frame, each followed by its barrier, with up to `window` frames in flight; reopens the socket if it dies. */
async function fuzzSocket(url: string, id: string, seed: number, frames: number, window: number, first: Sock): Promise<WsRun> {
  const cases = wsCases(seed, frames);
  const run: WsRun = { outcomes: {}, kinds: {}, mismatches: [], closes: 0, texts: new Set(), socks: [first] };
  const inflight: { i: number; got: string[] }[] = [];
  let wake: (() => void) | undefined;
  const settle = (outcome: (got: string[]) => string) => {
    const head = inflight.shift();
    if (!head) return;
    const f = cases[head.i]!;
    const e = expectFor(f);
    const got = outcome(head.got);
    count(run.outcomes, got);
    if (e.text !== undefined && got === "ok") run.texts.add(e.text);
    if (!e.outcomes.includes(got)) count(run.kinds, `${f.family}: expected ${e.outcomes.join(" | ")}, got ${got}`);
    if (!e.outcomes.includes(got)) run.mismatches.push(`#${head.i} ${f.family}${f.binary ? " (binary)" : ""}: expected ${e.outcomes.join(" | ")}, got ${got}: ${clip(Buffer.from(f.data).toString("utf8"), 120)}`);
  };
  const answer = (got: string[]) => (got.length === 0 ? "ok" : got.length === 1 ? got[0]! : `several: ${got.join(", ")}`);
  const attach = (sock: Sock) =>
    sock.listeners.add((m) => {
      if (m.type === "__closed") return void wake?.();
      const head = inflight[0];
      if (m.type === "error" && !("raw" in m) && m.turnId === undefined) {
        const barrier = /unknown message type "fzb-(\d+)"/.exec(m.message);
        if (!barrier) return void head?.got.push(`error:${m.code}`);
        if (Number(barrier[1]) !== head?.i) head?.got.push(`out-of-order barrier ${barrier[1]}`);
        settle(answer);
        wake?.();
      } else if ("raw" in m || !EVENTS.has(m.type)) head?.got.push(m.type);
    });
  let sock = first;
  attach(sock);
  for (let i = 0; i < cases.length || inflight.length > 0; ) {
    // A `ping` is answered by the runtime, not in order with the object's answers: send it alone.
    const f = cases[i];
    if (f && inflight.length < (expectFor(f).outcomes.includes("pong") ? 1 : window) && !sock.closed) {
      inflight.push({ i, got: [] });
      sock.send(f.data, f.binary);
      sock.send(`{"type":"fzb-${i}"}`);
      i++;
      continue;
    }
    const before = inflight.length;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 20_000);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
      if (sock.closed) wake();
    });
    if (inflight.length === before || sock.closed) {
      // No barrier came back (closed or hung): count what is in flight and go on with a new socket.
      run.closes++;
      while (inflight.length > 0) settle(() => (sock.closed ? "socket closed" : "no answer within 20 s"));
      sock.close();
      sock = await Sock.open(url, id);
      run.socks.push(sock);
      attach(sock);
    }
  }
  return run;
}

interface HttpResult { status: number; type: string; body: string; session?: string; error?: string }

function sendHttp(base: string, c: Pick<HttpCase, "method" | "path" | "headers" | "body" | "chunked">, agent: Agent, timeoutMs = 15_000): Promise<HttpResult> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const body = c.body === undefined ? undefined : Buffer.from(c.body);
    // Framed explicitly: Node sends a GET or DELETE body with neither a length nor chunking.
    const headers = body === undefined ? c.headers : { ...c.headers, ...(c.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.length) }) };
    let req: ReturnType<typeof request>;
    try {
      req = request({ host: url.hostname, port: url.port, method: c.method, path: c.path, headers, agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString("utf8"), session: res.headers["mcp-session-id"] as string | undefined }));
        res.on("error", (error) => resolve({ status: 0, type: "", body: "", error: error.message }));
      });
    } catch (error) {
      return resolve({ status: 0, type: "", body: "", error: `client refused the request: ${(error as Error).message}` });
    }
    req.on("error", (error) => resolve({ status: 0, type: "", body: "", error: error.message }));
    // The server may answer and reset while the body is still going out: the socket's late error is not the request's.
    req.on("socket", (socket) => socket.on("error", () => {}));
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    if (body && c.chunked) for (let at = 0; at < body.length; at += 256 * 1024) req.write(body.subarray(at, at + 256 * 1024));
    req.end(c.chunked ? undefined : body);
  });
}

const isRpc = (m: unknown): boolean => {
  const r = m as { jsonrpc?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown }; method?: unknown };
  return r?.jsonrpc === "2.0" && (r.result !== undefined || typeof r.method === "string" || (typeof r.error?.code === "number" && typeof r.error.message === "string"));
};

/** Why an answer breaks the documented contract, if it does. */
function judge(c: HttpCase, r: HttpResult): string | undefined {
  if (r.error) return `no response (${r.error})`;
  if (!c.expect.includes(r.status)) return `status ${r.status}, expected ${c.expect.join("|")}: ${clip(r.body)}`;
  if (LEAK.test(r.body)) return `leak in body: ${clip(r.body)}`;
  if (r.status === 204 || r.status === 202 || c.method === "HEAD") return r.body === "" ? undefined : `body on ${r.status}`;
  let body: unknown;
  try {
    body = r.type.startsWith("text/event-stream") ? r.body.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)) as unknown) : JSON.parse(r.body);
  } catch {
    return `not JSON (${r.type}): ${clip(r.body)}`;
  }
  if (!/^(application\/json|text\/event-stream)/.test(r.type)) return `content-type ${r.type}`;
  if (c.target === "worker") {
    if (r.status < 400) return undefined;
    const e = (body as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof e?.code !== "string" || typeof e.message !== "string" || !WORKER_CODES.includes(e.code)) return `no stable error code: ${clip(r.body)}`;
    return c.codes && !c.codes.includes(e.code) ? `code ${e.code}, expected ${c.codes.join("|")}` : undefined;
  }
  if (c.method === "GET" && r.status === 200) return undefined; // /health, /metrics
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0 || !list.every(isRpc)) return `not JSON-RPC: ${clip(r.body)}`;
  return r.status >= 400 && (Array.isArray(body) || !(body as { error?: unknown }).error) ? `error status without a JSON-RPC error: ${clip(r.body)}` : undefined;
}

/** Worker requests five at a time; bridge requests one after another (they share one MCP session, and ids repeat). */
async function runHttp(stack: Stack, cases: HttpCase[], outcomes: Record<string, number>, problems: Record<"worker" | "bridge", string[]>, kinds: Record<string, number>): Promise<void> {
  const agent = new Agent({ keepAlive: false }); // one connection per request: an answer cannot leak into the next
  const queues = { worker: [] as number[], bridge: [] as number[] };
  cases.forEach((c, i) => queues[c.target].push(i));
  const lane = async (queue: number[]) => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      const c = cases[i]!;
      const r = await sendHttp(c.target === "worker" ? stack.url : stack.bridge.url, c, agent);
      count(outcomes, `${c.target} ${r.error ? "no response" : r.status}`);
      const problem = judge(c, r);
      if (problem) problems[c.target].push(`#${i} ${c.family} ${c.method} ${c.path.slice(0, 80)}: ${problem}`);
      if (problem) count(kinds, `${c.target} ${c.family}: ${problem.replace(/: ".*$/s, "")}`);
    }
  };
  await Promise.all([...Array.from({ length: 5 }, () => lane(queues.worker)), lane(queues.bridge)]);
  agent.destroy();
}

const rpcPost = (stack: Stack, session: string, body: unknown, timeoutMs: number) =>
  sendHttp(stack.bridge.url, { method: "POST", path: "/servers/filesystem/mcp", headers: { authorization: `Bearer ${stack.bridge.token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session }, body: JSON.stringify(body) }, new Agent(), timeoutMs);

/** Two POSTs with the same request id at once (five pairs): each must be answered, if only with an error. */
async function duplicateIds(stack: Stack, session: string): Promise<string[]> {
  const call = (k: number) => ({ jsonrpc: "2.0", id: `dup-${k}`, method: "tools/call", params: { name: "directory_tree", arguments: { path: stack.fsRoot } } });
  const answers = await Promise.all([0, 1, 2, 3, 4].flatMap((k) => [rpcPost(stack, session, call(k), 5_000), rpcPost(stack, session, call(k), 5_000)]));
  return answers.flatMap((r, i) => (r.error ? [`request ${i % 2 + 1} of pair dup-${i >> 1}: ${r.error}`] : []));
}

/** A tool result over the bridge's 10 MiB line buffer (an 11 MiB file): an answer, and the bridge still up. Runs last. */
async function oversizedResult(stack: Stack, session: string): Promise<{ figure: string; problems: string[] }> {
  writeFileSync(join(stack.fsRoot, "fz-big.txt"), "x".repeat(11 * 1024 * 1024));
  const r = await rpcPost(stack, session, { jsonrpc: "2.0", id: "big", method: "tools/call", params: { name: "read_text_file", arguments: { path: join(stack.fsRoot, "fz-big.txt") } } }, 30_000);
  const health = await sendHttp(stack.bridge.url, { method: "GET", path: "/health", headers: {} }, new Agent(), 5_000);
  const child = stack.bridge.process;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const exit = child.exitCode ?? (health.error ? await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000, "none yet"))]) : null);
  const problems = [
    ...(r.error ? [`read_text_file of an 11 MiB file: no answer (${r.error})`] : []),
    ...(health.status === 200 ? [] : [`bridge down afterwards (exit code ${exit}): ${clip(stack.bridge.stderr().trim().split("\n").filter((l) => !/^\s+at /.test(l)).slice(-3).join(" | "), 300)}`]),
  ];
  return { figure: `${r.error ? "no answer" : `answered ${r.status}`}; bridge ${health.status === 200 ? "up" : `down (exit code ${exit})`}`, problems };
}

/** JSON with sorted keys: a reloaded object lists an entry's fields in another order. */
const canon = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));
/** Log lines with a stack frame or an install path, reported once per message they belong to (the line above the frames). */
function logLeaks(text: string, where: string): string[] {
  const found: Record<string, number> = {};
  let header = "";
  let inTrace = false;
  for (const raw of text.replace(/\x1b\[[0-9;]*m/g, "").split("\n")) {
    const line = raw.trim();
    const frame = /^at \S/.test(line);
    if (frame && !inTrace) count(found, `${where}: ${header.slice(0, 160)} (then a stack trace)`);
    else if (!frame && LEAK.test(line)) count(found, `${where}: ${line.slice(0, 200)}`);
    if (line && !frame) header = line;
    inTrace = frame || (inTrace && !line);
  }
  return Object.entries(found).map(([line, n]) => `${line} ×${n}`);
}

const history = async (url: string, id: string) => ((await (await fetch(`${url}/sessions/${id}/history`)).json()) as { entries: HistoryEntry[] }).entries;

export async function runFuzz(stack: Stack, o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? (() => {});
  const started = performance.now();
  const auto = { call: { call: { name: "filesystem__list_directory", args: { path: stack.fsRoot } } }, text: "done" };
  await fetch(`${stack.llm.url}/__auto/${encodeURIComponent(stack.llmKey)}`, { method: "POST", body: JSON.stringify(auto) });
  const [fuzzId, otherId] = [`fz-main-${o.seed}`, `fz-other-${o.seed}`];
  const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } } };
  const rpcHeaders = { authorization: `Bearer ${stack.bridge.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const agent = new Agent({ keepAlive: false });
  const mcp = await sendHttp(stack.bridge.url, { method: "POST", path: "/servers/filesystem/mcp", headers: rpcHeaders, body: JSON.stringify(init) }, agent);
  if (!mcp.session) throw new Error(`setup: the bridge did not open an MCP session (${mcp.status} ${mcp.error ?? mcp.body.slice(0, 200)})`);
  await sendHttp(stack.bridge.url, { method: "POST", path: "/servers/filesystem/mcp", headers: { ...rpcHeaders, "mcp-session-id": mcp.session }, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' }, agent);
  const ctx: HttpContext = { fsRoot: stack.fsRoot, sessions: [fuzzId, otherId, "fz-http-a"], toolSessions: ["fz-http-a", "fz-http-b"], junk: ["fz-junk-a", "fz-junk-b"], token: stack.bridge.token, mcpSession: mcp.session };

  // The sessions the HTTP cases name are the caller's own: opening one claims it.
  for (const id of [...new Set([...ctx.sessions.slice(2), ...ctx.toolSessions, ...ctx.junk])]) (await Sock.open(stack.url, id)).close();
  const requests = httpCases(o.seed, ctx, o.workerHttp, o.bridgeHttp);
  const [fuzzSock, otherSock] = await Promise.all([Sock.open(stack.url, fuzzId), Sock.open(stack.url, otherId)]);
  // A valid message first, so the history compared before/after is not empty.
  const deliberate = (await normalTurn(fuzzSock, ODD_TEXTS[0]!)).problem;
  if (deliberate) throw new Error(`setup: a valid message on the fuzzed session did not complete a turn: ${deliberate}`);
  const before = await history(stack.url, fuzzId);
  const [workerMark, bridgeMark] = [stack.workerLog().length, stack.bridge.stderr().length];
  log(`fuzzing: ${o.frames} frames, ${o.workerHttp} Worker + ${o.bridgeHttp} bridge requests, seed ${o.seed}`);

  let fuzzing = true;
  const turns = { done: 0, ms: [] as number[], problems: [] as string[] };
  const other = (async () => {
    for (let n = 1; fuzzing || n === 1; n++) {
      const t = await normalTurn(otherSock, `normal turn ${n}`);
      turns.done++;
      turns.ms.push(t.ms);
      if (t.problem) turns.problems.push(t.problem);
    }
  })();
  const httpOutcomes: Record<string, number> = {};
  const httpProblems = { worker: [] as string[], bridge: [] as string[] };
  const httpKinds: Record<string, number> = {};
  const timed = async <T>(what: string, p: Promise<T>) => {
    const t = await p;
    log(`${what} done after ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return t;
  };
  const [ws] = await Promise.all([
    timed("WebSocket frames", fuzzSocket(stack.url, fuzzId, o.seed, o.frames, o.window ?? 8, fuzzSock)),
    timed("HTTP requests", runHttp(stack, requests, httpOutcomes, httpProblems, httpKinds)),
  ]);
  fuzzing = false;
  await other;
  const last = ws.socks[ws.socks.length - 1]!;
  if (last.closed) ws.closes++;
  while (last.openTurns.size > 0) await last.waitFor((m) => m.type === "turn_end", 30_000).catch(() => last.openTurns.clear());
  const after = await history(stack.url, fuzzId);
  const ms = performance.now() - started;

  // History: what was there, then exactly the entries of turns started by valid messages.
  const seen = new Map<number, HistoryEntry>(ws.socks.flatMap((s) => [...s.entries]));
  const maxBefore = Math.max(0, ...before.map((e) => e.seq));
  const added = [...seen.values()].filter((e) => e.seq > maxBefore).sort((a, b) => a.seq - b.seq);
  const validTurns = new Set(added.filter((e) => e.kind === "user" && ws.texts.has(e.text ?? "")).map((e) => e.turnId));
  const historyProblems = [
    ...[...before, ...added].flatMap((e, i) => (canon(e) === canon(after[i]) ? [] : [`history[${i}] is ${clip(JSON.stringify(after[i]))}, expected ${clip(JSON.stringify(e))}`])).slice(0, 5),
    ...(after.length > before.length + added.length ? [`${after.length - before.length - added.length} stored entries were never broadcast`] : []),
    ...added.filter((e) => !validTurns.has(e.turnId)).map((e) => `entry #${e.seq} (${e.kind}) not from a valid message: ${clip(JSON.stringify(e))}`),
  ];
  const socks = [...ws.socks, otherSock];
  const leaks = [...socks.flatMap((s) => s.leaks), ...logLeaks(stack.workerLog().slice(workerMark), "worker log"), ...logLeaks(stack.bridge.stderr().slice(bridgeMark), "bridge log")];
  for (const s of socks) s.close();
  const dup = await duplicateIds(stack, ctx.mcpSession);
  const big = await oversizedResult(stack, ctx.mcpSession);

  const ok = ws.outcomes.ok ?? 0;
  const errors = Object.entries(ws.outcomes).filter(([k]) => k.startsWith("error:")).reduce((n, [, v]) => n + v, 0);
  const sorted = [...turns.ms].sort((a, b) => a - b);
  const pct = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
  const reqs = (t: "worker" | "bridge") => (t === "worker" ? o.workerHttp : o.bridgeHttp);
  const http = (t: "worker" | "bridge", shape: string): Omit<FuzzCheck, "scenario"> => ({
    done: `${reqs(t)} seeded requests to the ${t === "worker" ? "Worker (tools, sessions, history, odd ids/methods/content types, unknown routes)" : "bridge (JSON-RPC in/without a session, batches, /messages, odd headers/routes, bodies over 4 MiB)"}`,
    figure: `${reqs(t) - httpProblems[t].length}/${reqs(t)} answered ${shape} with an allowed status`,
    pass: httpProblems[t].length === 0,
    problems: httpProblems[t],
  });
  const checks: FuzzCheck[] = [
    { done: `${o.frames} seeded frames (seed ${o.seed}), 14 families`, figure: `${errors} typed errors, ${ok} handled as valid, ${ws.mismatches.length} not as the protocol says`, pass: ws.mismatches.length === 0, problems: ws.mismatches },
    { done: `${o.frames} frames on one socket`, figure: `${ws.closes} closed or hung`, pass: ws.closes === 0, problems: ws.closes > 0 ? [`the socket closed or stopped answering ${ws.closes} time(s)`] : [] },
    { done: "every frame received checked against protocol.ts", figure: `${socks.reduce((n, s) => n + s.invalid.length, 0)} frames outside the protocol`, pass: socks.every((s) => s.invalid.length === 0), problems: socks.flatMap((s) => s.invalid) },
    { done: "another session ran one-tool-call turns throughout", figure: `${turns.done - turns.problems.length}/${turns.done} turns complete, p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms`, pass: turns.problems.length === 0 && turns.done > 0, problems: turns.problems },
    { done: "history read before and after the fuzz", figure: `${before.length} → ${after.length} entries, ${validTurns.size} turn(s) from valid messages`, pass: historyProblems.length === 0, problems: historyProblems },
    { scenario: "", ...http("worker", "as JSON with a documented code") },
    { scenario: "", ...http("bridge", "as JSON-RPC") },
    { done: "WebSocket frames, HTTP bodies, Worker and bridge logs scanned", figure: `${leaks.length} leak(s)`, pass: leaks.length === 0, problems: leaks },
    { done: "5 pairs of concurrent tools/call with the same id in one MCP session", figure: `${10 - dup.length}/10 requests answered within 5 s`, pass: dup.length === 0, problems: dup },
    { done: "tools/call read_text_file of an 11 MiB file through the bridge (last)", figure: big.figure, pass: big.problems.length === 0, problems: big.problems },
  ].map((c, i) => ({ ...c, scenario: SCENARIOS[i]! }));
  return { checks, wsOutcomes: ws.outcomes, wsMismatches: ws.kinds, httpOutcomes, httpMismatches: httpKinds, ms };
}

async function main(): Promise<void> {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    const v = i > 0 ? Number(process.argv[i + 1]) : NaN;
    return Number.isInteger(v) && v >= 0 ? v : fallback;
  };
  const frames = Math.max(arg("frames", 10_000), 1);
  const http = arg("http", 3_000);
  const seed = arg("seed", 1);
  const log = (line: string) => process.stderr.write(`fuzz: ${line}\n`);
  const stack = await startStack({ vars: { RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "10000" } });
  let failed = true;
  try {
    const report = await runFuzz(stack, { frames, workerHttp: Math.round((http * 2) / 3), bridgeHttp: http - Math.round((http * 2) / 3), seed, log });
    const table = (title: string, m: Record<string, number>) => [`${title}:`, ...Object.entries(m).sort((a, b) => b[1] - a[1]).map(([k, v]) => `  ${String(v).padStart(7)}  ${k}`)].join("\n");
    console.log(table("WebSocket outcomes", report.wsOutcomes));
    console.log(table("HTTP outcomes", report.httpOutcomes));
    console.log(table("WebSocket answers not as the protocol says", report.wsMismatches));
    console.log(table("HTTP answers not as documented", report.httpMismatches));
    console.log(`time: ${(report.ms / 1000).toFixed(1)} s for ${frames} frames + ${http} requests`);
    for (const c of report.checks) {
      console.log(`${c.pass ? "PASS" : "FAIL"}  ${c.scenario}: ${c.figure}`);
      for (const p of c.problems.slice(0, 12)) console.log(`        ${p}`);
      if (c.problems.length > 12) console.log(`        … ${c.problems.length - 12} more`);
      recordRow({ suite: "Bad input", scenario: c.scenario, done: c.done, figure: c.figure, pass: c.pass });
    }
    failed = report.checks.some((c) => !c.pass);
  } catch (error) {
    log(`worker log tail:\n${stack.workerLog().slice(-3000)}`);
    throw error;
  } finally {
    await stack.stop();
  }
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(2);
  });
}
