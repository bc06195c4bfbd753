// A session's requests to a paired machine's servers, through the relay in the user's
// account object, in real workerd. A bridge in `connect` mode cannot reach the workerd
// under test (it has no listening address), so the test plays the machine: it holds the
// machine's socket and answers each `req` frame with the frames of
// src/shared/machine-frames.ts, as the bridge does (the bridge itself is tested against
// `wrangler dev` in tests/e2e/machines.test.ts and tests/reliability/attacks.machines.test.ts).
// Requests go out through machineFetch, the fetch a session uses for a machine's server.
import { env, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { machineServerUrl } from "../../../src/machines/tunnel-url";
import { machineFetch } from "../../../src/servers/machines";
import { MAX_IN_FLIGHT, type ToBridge, type ToWorker } from "../../../src/shared/machine-frames";
import { userAccount } from "../../../src/users/account";
import type { TestUser } from "../test-users";
import { WORKER_ORIGIN, workerFetch } from "../worker-fetch";

const USER: TestUser = "carol";
const json = { "content-type": "application/json" };
const relayFetch = machineFetch(() => userAccount(env as unknown as Env, `token:${USER}`));

/** The test's side of a paired machine: its socket, the frames the relay sent it, and how it answers. */
class Machine {
  readonly frames: ToBridge[] = [];
  readonly closed: Promise<number>;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly id: string,
    readonly ws: WebSocket,
  ) {
    ws.addEventListener("message", (event) => {
      if (event.data !== "pong") this.frames.push(JSON.parse(String(event.data)) as ToBridge);
      for (const wake of [...this.waiters]) wake();
    });
    this.closed = new Promise((resolve) => ws.addEventListener("close", (event) => resolve(event.code)));
  }

  /** The first frame of kind `t` after the first `after` frames, once it has arrived. */
  next<T extends ToBridge["t"]>(t: T, after = 0): Promise<Extract<ToBridge, { t: T }>> {
    return new Promise((resolve) => {
      const check = () => {
        const found = this.frames.slice(after).find((f): f is Extract<ToBridge, { t: T }> => f.t === t);
        if (!found) return;
        this.waiters.delete(check);
        resolve(found);
      };
      this.waiters.add(check);
      check();
    });
  }

  send(frame: ToWorker | string): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }
}

const paired: string[] = [];
afterEach(async () => {
  for (const id of paired.splice(0)) await workerFetch(`/api/machines/${id}`, { method: "DELETE" }, USER);
});

/** Each pairing from an address of its own: an address may have only PAIRINGS_PER_ADDRESS pairings started in 10 minutes. */
let pairings = 0;

async function pair(name: string): Promise<{ id: string; credential: string }> {
  const from = `198.51.100.${++pairings}`;
  const started = (await (
    await SELF.fetch(`${WORKER_ORIGIN}/api/machines/pair`, { method: "POST", headers: { ...json, "cf-connecting-ip": from }, body: JSON.stringify({ name }) })
  ).json()) as { code: string; pollToken: string };
  const approved = await workerFetch("/api/machines/approve", { method: "POST", headers: json, body: JSON.stringify({ code: started.code }) }, USER);
  const { machine } = (await approved.json()) as { machine: { id: string } };
  paired.push(machine.id);
  const polled = (await (
    await SELF.fetch(`${WORKER_ORIGIN}/api/machines/pair/poll`, { method: "POST", headers: json, body: JSON.stringify(started) })
  ).json()) as { credential: string };
  return { id: machine.id, credential: polled.credential };
}

async function connect(name: string, servers = "everything"): Promise<Machine> {
  const { id, credential } = await pair(name);
  const response = await SELF.fetch(`${WORKER_ORIGIN}/machines/connect`, {
    headers: { upgrade: "websocket", authorization: `Bearer ${credential}`, "x-edgehost-servers": servers },
  });
  const ws = response.webSocket;
  if (!ws) throw new Error(`no WebSocket: ${response.status} ${await response.text()}`);
  ws.accept();
  return new Machine(id, ws);
}

const post = (machineId: string, body: string, headers: Record<string, string> = {}) =>
  relayFetch(machineServerUrl(machineId, "everything"), { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

describe("a session's request to a paired machine", () => {
  it("goes to the machine with only the MCP headers, and its streamed answer comes back with only the MCP headers", async () => {
    const machine = await connect("stream");
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const answer = post(machine.id, body, {
      accept: "application/json, text/event-stream",
      "mcp-session-id": "session-1",
      cookie: "edgehost_login=secret",
      authorization: "Bearer not-for-the-machine",
    });
    const req = await machine.next("req");
    expect(req).toMatchObject({ method: "POST", path: "/servers/everything/mcp", body });
    expect(Object.fromEntries(req.headers)).toEqual({
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-session-id": "session-1",
    });
    const events = ['event: message\ndata: {"jsonrpc":"2.0","id":1,', '"result":{"tools":[]}}\n\n'];
    machine.send({
      t: "head",
      id: req.id,
      status: 200,
      headers: [
        ["content-type", "text/event-stream"],
        ["mcp-session-id", "session-1"],
        ["set-cookie", "machine=1"],
      ],
    });
    for (const [seq, chunk] of events.entries()) machine.send({ t: "data", id: req.id, chunk, seq });
    machine.send({ t: "end", id: req.id, chunks: events.length });
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("mcp-session-id")).toBe("session-1");
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await response.text()).toBe(events.join(""));
    machine.ws.close(1000, "done");
  });

  it("puts a streamed answer's chunks in order, whatever order they are handed over in", async () => {
    const machine = await connect("reordered");
    const answer = post(machine.id, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }), { accept: "application/json, text/event-stream" });
    const req = await machine.next("req");
    const chunks = ["event: message\n", 'data: {"jsonrpc":"2.0","id":3,', '"result":{"tools":[]}}', "\n\n"];
    // The end and the last chunks first, one chunk even before the head: the body still reads as sent.
    machine.send({ t: "data", id: req.id, chunk: chunks[2] ?? "", seq: 2 });
    machine.send({ t: "end", id: req.id, chunks: chunks.length });
    machine.send({ t: "head", id: req.id, status: 200, headers: [["content-type", "text/event-stream"]] });
    machine.send({ t: "data", id: req.id, chunk: chunks[3] ?? "", seq: 3 });
    machine.send({ t: "data", id: req.id, chunk: chunks[0] ?? "", seq: 0 });
    machine.send({ t: "data", id: req.id, chunk: chunks[1] ?? "", seq: 1 });
    expect(await (await answer).text()).toBe(chunks.join(""));
    machine.ws.close(1000, "done");
  });

  it("takes a whole answer in one frame, and a 202 without a body", async () => {
    const machine = await connect("whole");
    const first = post(machine.id, '{"jsonrpc":"2.0","id":2,"method":"ping"}');
    const req = await machine.next("req");
    machine.send({ t: "full", id: req.id, status: 200, headers: [["content-type", "application/json"]], body: '{"jsonrpc":"2.0","id":2,"result":{}}' });
    expect(await (await first).json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });

    const from = machine.frames.length;
    const second = post(machine.id, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const notification = await machine.next("req", from);
    machine.send({ t: "full", id: notification.id, status: 202, headers: [], body: "ignored" });
    const accepted = await second;
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe("");
    machine.ws.close(1000, "done");
  });

  it("fails with machine_failed when the machine cannot answer", async () => {
    const machine = await connect("failing");
    const refused = post(machine.id, "{}");
    const req = await machine.next("req");
    machine.send({ t: "fail", id: req.id, message: "server everything is not running" });
    const response = await refused;
    expect(response.status).toBe(502);
    expect(await errorOf(response)).toEqual({ code: "machine_failed", message: "the machine could not answer: server everything is not running" });
    machine.ws.close(1000, "done");
  });

  it("tells the machine to stop a request whose answer the session stopped reading", async () => {
    const machine = await connect("abort");
    const answer = relayFetch(machineServerUrl(machine.id, "everything"), { method: "GET", headers: { accept: "text/event-stream" } });
    const req = await machine.next("req");
    expect(req).toMatchObject({ method: "GET", path: "/servers/everything/mcp" });
    expect(req.body).toBeUndefined();
    machine.send({ t: "head", id: req.id, status: 200, headers: [["content-type", "text/event-stream"]] });
    await (await answer).body?.cancel();
    // The machine goes on streaming until told: its next chunk finds the session gone.
    machine.send({ t: "data", id: req.id, chunk: "event: message\n" });
    expect(await machine.next("abort")).toEqual({ t: "abort", id: req.id });
    machine.ws.close(1000, "done");
  });

  it("takes answers only from the machine asked, and fails what is in flight when that machine goes offline", async () => {
    const asked = await connect("asked");
    const other = await connect("other");
    const answer = post(asked.id, "{}");
    const req = await asked.next("req");
    // Another machine of the same user answering this id, and an id nobody asked for: both dropped.
    other.send({ t: "full", id: req.id, status: 200, headers: [], body: "from the other machine" });
    other.send({ t: "full", id: req.id + 1, status: 200, headers: [], body: "unasked" });
    asked.send({ t: "full", id: req.id, status: 200, headers: [], body: "from the machine asked" });
    expect(await (await answer).text()).toBe("from the machine asked");

    const from = asked.frames.length;
    const inFlight = post(asked.id, "{}");
    await asked.next("req", from);
    asked.ws.close(1000, "laptop closed");
    const offline = await inFlight;
    expect(offline.status).toBe(503);
    expect(await errorOf(offline)).toEqual({ code: "machine_offline", message: "the machine went offline" });
    other.ws.close(1000, "done");
  });

  it("refuses what it cannot relay: another URL, an unknown or offline machine, other methods, a body over 4 MiB, too many at once", async () => {
    const notMachine = await relayFetch("https://example.com/servers/everything/mcp", { method: "POST", body: "{}" });
    expect(await errorOf(notMachine)).toMatchObject({ code: "machine_unknown" });
    const unknown = await post("0123456789ab", "{}");
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatchObject({ code: "machine_unknown" });

    const { id: sleeping } = await pair("sleeping");
    const offline = await post(sleeping, "{}");
    expect(offline.status).toBe(503);
    expect(await errorOf(offline)).toEqual({ code: "machine_offline", message: 'machine "sleeping" is offline: start `mcp-local-bridge connect` on it' });

    const machine = await connect("picky");
    const put = await relayFetch(machineServerUrl(machine.id, "everything"), { method: "PUT", body: "{}" });
    expect(put.status).toBe(405);
    expect(await errorOf(put)).toMatchObject({ code: "method_not_allowed" });
    const huge = await post(machine.id, "x".repeat(4 * 1024 * 1024 + 1));
    expect(huge.status).toBe(413);
    expect(await errorOf(huge)).toMatchObject({ code: "payload_too_large" });
    // None of those reached the machine.
    expect(machine.frames).toEqual([]);

    const waiting = Array.from({ length: MAX_IN_FLIGHT }, () => post(machine.id, "{}"));
    while (machine.frames.length < MAX_IN_FLIGHT) await machine.next("req", machine.frames.length);
    const busy = await post(machine.id, "{}");
    expect(busy.status).toBe(503);
    expect(await errorOf(busy)).toMatchObject({ code: "machine_busy" });
    for (const frame of machine.frames) if (frame.t === "req") machine.send({ t: "full", id: frame.id, status: 200, headers: [], body: "ok" });
    expect(await Promise.all(waiting.map(async (r) => (await r).status))).toEqual(Array(MAX_IN_FLIGHT).fill(200));
    machine.ws.close(1000, "done");
  });

  it("learns the machine's servers from hello, and closes a socket that keeps sending what it cannot read", async () => {
    const machine = await connect("announcer");
    const answer = post(machine.id, "{}");
    const req = await machine.next("req");
    // Frames of one socket arrive in order: once the answer sent after it is in, so is hello.
    machine.send({ t: "hello", servers: ["everything", "filesystem"] });
    machine.send({ t: "full", id: req.id, status: 200, headers: [], body: "ok" });
    await (await answer).text();
    const listed = (await (await workerFetch("/api/machines", {}, USER)).json()) as { machines: { id: string; servers: string[] }[] };
    expect(listed.machines.find((m) => m.id === machine.id)?.servers).toEqual(["everything", "filesystem"]);

    // Text that is not JSON, and JSON that is no frame: past a limit, a confused or hostile bridge is cut off.
    for (let i = 0; i < 30; i++) machine.send(i % 2 === 0 ? `not a frame ${i}` : JSON.stringify({ t: "data", id: -1, chunk: "no such id" }));
    expect(await machine.closed).toBe(1008);
  });

  it("bears the few answers that outlive an abort, and closes a socket that keeps answering requests it never had, even below the frame rate", async () => {
    const machine = await connect("stray");
    // Fewer frames than the per-second rate allows, so only the count of strays can close the socket.
    for (let id = 10_000; id < 11_000; id++) machine.send({ t: "end", id, chunks: 0 });
    const answer = post(machine.id, "{}");
    const req = await machine.next("req");
    machine.send({ t: "full", id: req.id, status: 200, headers: [], body: "still served" });
    expect(await (await answer).text()).toBe("still served");
    machine.send({ t: "end", id: 11_000, chunks: 0 });
    expect(await machine.closed).toBe(1008);
  });
});
