// Paired machines (issue 21.4), as their owner uses them and as others attack them, on
// the real stack in AUTH_MODE=token (wrangler dev, the fake Gemini) with the real
// `mcp-local-bridge connect` process: alice pairs her machine; its server reaches her
// sessions (a model's tool call, progress and a sampling request both ways) and nobody
// else's; forged and revoked credentials, pairing codes guessed, replayed or approved
// by someone else, and a hostile bridge's frames are refused.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { pairMachine, startConnect, type PairedMachine } from "../fixtures/paired-machine";
import { listeningSockets } from "../fixtures/listening-sockets";
import { raw, tryUpgrade } from "../fixtures/raw-http";
import { openSession } from "../fixtures/session-client-node";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const ALICE = "alice-token-machines-0123456789";
const BOB = "bob-token-machines-0123456789ab";
/** Guesses pairing codes (and is throttled for it): nobody else in this file is. */
const CAROL = "carol-token-machines-0123456789";
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const json = { "content-type": "application/json" };

let stack: Stack;
let machine: PairedMachine;
beforeAll(async () => {
  stack = await startStack({
    vars: {
      AUTH_MODE: "token",
      ACCESS_TOKENS: `alice:${ALICE},bob:${BOB},carol:${CAROL}`,
      // Small, so the last test fills the deployment's room for pairings in flight; the tests before use 16.
      PAIRINGS_PENDING_MAX: "30",
    },
  });
  machine = await pairMachine(stack.url, ALICE, "laptop");
}, 90_000);
afterAll(async () => {
  await machine?.stop();
  await stack?.stop();
});

const credentialOf = (dir: string) => (JSON.parse(readFileSync(join(dir, ".edgehost-device.json"), "utf8")) as { credential: string }).credential;
const call = (token: string, tool: string, args: Record<string, unknown>) =>
  raw(stack.url, `/api/tools/${tool}`, { method: "POST", headers: { ...auth(token), ...json }, body: JSON.stringify({ arguments: args, approved: true }) });

describe("a paired machine", () => {
  it("serves its owner's sessions: a model's call with progress, and a sampling request answered through the relay", async () => {
    const device = join(machine.dir, ".edgehost-device.json");
    expect(statSync(device).mode & 0o777).toBe(0o600);
    // It dials out and nothing can dial in: no TCP port, no socket file.
    expect(listeningSockets(machine.process.pid ?? 0)).toEqual([]);
    const listed = await raw(stack.url, "/api/machines", { headers: auth(ALICE) });
    expect(listed.json()).toMatchObject({ machines: [{ id: machine.id, name: "laptop", servers: ["everything"], online: true }] });
    const direct = await call(ALICE, "laptop-everything.echo", { message: "through the relay" });
    expect(direct.json()).toMatchObject({ result: { content: [{ type: "text", text: "Echo: through the relay" }] } });

    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("laptop-everything__trigger-long-running-operation", { duration: 1, steps: 3 }),
      reply.callReply("laptop-everything__trigger-sampling-request", { prompt: "one word", maxTokens: 5 }),
      reply.text("sampled"),
      reply.text("all done"),
    ]);
    const socket = await openSession(stack.url, crypto.randomUUID(), { headers: auth(ALICE) });
    const from = socket.say("use my laptop");
    for (const tool of ["trigger-long-running-operation", "trigger-sampling-request"]) {
      const request = await socket.next((m) => m.type === "approval_request" && m.kind === "tool" && m.tool === tool, from);
      socket.send({ type: "approval", callId: request.type === "approval_request" ? request.callId : "", approved: true });
      if (tool === "trigger-sampling-request") {
        const sampling = await socket.next((m) => m.type === "approval_request" && m.kind === "sampling", from);
        expect(sampling).toMatchObject({ server: "laptop-everything" });
        socket.send({ type: "approval", callId: sampling.type === "approval_request" ? sampling.callId : "", approved: true });
      }
    }
    const { end, messages } = await socket.turnEnd(from, 60_000);
    expect(end.reason).toBe("complete");
    const statuses = messages.filter((m) => m.type === "status" && m.server === "laptop-everything").map((m) => (m.type === "status" ? m.state : ""));
    expect(statuses.filter((s) => s === "progress").length).toBeGreaterThanOrEqual(2);
    const sampled = messages.find((m) => m.type === "status" && m.state === "complete" && m.tool === "trigger-sampling-request");
    expect(JSON.stringify(sampled)).toContain("sampled");
    socket.close();
  });

  it(
    "is nobody else's",
    attackCase(
      "Paired machine: another user's machine",
      "bob lists machines, calls alice's laptop-everything.echo directly and from his session's tool list, removes it by id",
      async () => {
        expect((await raw(stack.url, "/api/machines", { headers: auth(BOB) })).json()).toEqual({ machines: [] });
        const called = await call(BOB, "laptop-everything.echo", { message: "x" });
        expect(called.status).toBe(404);
        const servers = await raw(stack.url, "/api/servers", { headers: auth(BOB) });
        expect(servers.text).not.toContain("laptop");
        const removed = await raw(stack.url, `/api/machines/${machine.id}`, { method: "DELETE", headers: auth(BOB) });
        expect(removed.status).toBe(404);
        expect((await raw(stack.url, "/api/machines", { headers: auth(ALICE) })).json()).toMatchObject({ machines: [{ id: machine.id, online: true }] });
        return {
          tried: 4,
          figure: `4/4 refused (list empty, call ${called.status}, not in his servers, delete ${removed.status}); alice's machine still online`,
        };
      },
    ),
  );

  it(
    "refuses forged device credentials",
    attackCase(
      "Paired machine: forged device credential",
      "connect with no credential, a random one, alice's machine and secret under bob's user part, alice's user and machine with another secret",
      async () => {
        const [user = "", id = "", secret = ""] = credentialOf(machine.dir).split(".");
        const bobPart = Buffer.from("token:bob").toString("base64url");
        const other = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
        const forged = ["", `${user}.${id}`, `${bobPart}.${id}.${secret}`, `${user}.${id}.${other}`, `${user}.000000000000.${secret}`];
        const statuses: number[] = [];
        for (const credential of forged) statuses.push((await tryUpgrade(stack.url, "/machines/connect", credential ? auth(credential) : {})).status);
        expect(statuses).toEqual([401, 401, 401, 401, 401]);
        return { tried: forged.length, figure: `${forged.length}/${forged.length} refused with 401` };
      },
    ),
  );

  it(
    "takes pairing codes once, from the person who approves them, and throttles guesses",
    attackCase(
      "Pairing codes: guessed, replayed, approved by the wrong user",
      "12 made-up codes approved from one address; a real code approved twice and polled twice; a code alice started approved by bob",
      async () => {
        // A code alice started, approved by bob: the machine is bob's, and alice's terminal says so.
        const started = await startConnect(stack.url, "alices-box");
        const approved = await raw(stack.url, "/api/machines/approve", {
          method: "POST",
          headers: { ...auth(BOB), ...json },
          body: JSON.stringify({ code: started.code }),
        });
        expect(approved.status).toBe(201);
        await started.waitFor(/Paired to bob as machine "alices-box"/);
        const replayed = await raw(stack.url, "/api/machines/approve", {
          method: "POST",
          headers: { ...auth(ALICE), ...json },
          body: JSON.stringify({ code: started.code }),
        });
        expect(replayed.status).toBe(404);
        expect((await raw(stack.url, "/api/machines", { headers: auth(ALICE) })).text).not.toContain("alices-box");
        started.child.kill("SIGTERM");
        await started.exited;
        // The bridge's poll: the credential once, then nothing.
        const pair = await raw(stack.url, "/api/machines/pair", { method: "POST", headers: json, body: JSON.stringify({ name: "polled" }) });
        const { code, pollToken } = pair.json() as { code: string; pollToken: string };
        await raw(stack.url, "/api/machines/approve", { method: "POST", headers: { ...auth(ALICE), ...json }, body: JSON.stringify({ code }) });
        const first = await raw(stack.url, "/api/machines/pair/poll", { method: "POST", headers: json, body: JSON.stringify({ code, pollToken }) });
        const second = await raw(stack.url, "/api/machines/pair/poll", { method: "POST", headers: json, body: JSON.stringify({ code, pollToken }) });
        expect([first.status, first.json().state, second.status]).toEqual([200, "approved", 404]);
        // Last: the guesses throttle bob (per person) for the rest of this file.
        const guesser = { ...auth(BOB), ...json, "cf-connecting-ip": "198.51.100.7" };
        const guesses: number[] = [];
        for (let i = 0; i < 12; i++) {
          const code = `ABCD-${String(2345 + i).replace(/[01]/g, "2")}`;
          guesses.push((await raw(stack.url, "/api/machines/approve", { method: "POST", headers: guesser, body: JSON.stringify({ code }) })).status);
        }
        expect(guesses.slice(0, 10)).toEqual(Array(10).fill(404));
        expect(guesses.slice(10)).toEqual([429, 429]);
        return {
          tried: 15,
          figure: `guesses: 10 × 404 then 429; replayed approval 404; second poll 404; bob's approval made the machine bob's and the terminal said "Paired to bob"`,
        };
      },
    ),
  );

  it(
    "answers pairing look-ups only within the guess throttle, per address and per person",
    attackCase(
      "Pairing codes: look-ups as an oracle",
      "carol looks up and approves 10 made-up codes from one address, then a real code from it and from a fresh address; alice looks the real code up from both",
      async () => {
        const pending = (
          await raw(stack.url, "/api/machines/pair", { method: "POST", headers: json, body: JSON.stringify({ name: "secret-box" }) })
        ).json() as {
          code: string;
        };
        const from = (address: string, token: string) => ({ ...auth(token), ...json, "cf-connecting-ip": address });
        const lookUp = (code: string, address: string, token: string) => raw(stack.url, `/api/machines/pair/${code}`, { headers: from(address, token) });
        const guesses: number[] = [];
        for (let i = 0; i < 10; i++) {
          const code = `WXYZ-${"ABCDEFGHJK"[i]}ZZZ`;
          const answer =
            i % 2
              ? await raw(stack.url, "/api/machines/approve", { method: "POST", headers: from("198.51.100.20", CAROL), body: JSON.stringify({ code }) })
              : await lookUp(code, "198.51.100.20", CAROL);
          guesses.push(answer.status);
        }
        expect(guesses).toEqual(Array(10).fill(404));
        const next = await lookUp("WXYZ-MZZZ", "198.51.100.20", CAROL);
        expect(next.status).toBe(429);
        expect(next.json()).toMatchObject({ error: { code: "sign_in_throttled" } });
        // The address is throttled: the right code there shows nothing, whoever asks.
        const atAddress = await lookUp(pending.code, "198.51.100.20", ALICE);
        expect(atAddress.status).toBe(429);
        expect(atAddress.text).not.toContain("secret-box");
        // And so is carol, from anywhere.
        const elsewhere = await lookUp(pending.code, "198.51.100.21", CAROL);
        expect(elsewhere.status).toBe(429);
        expect(elsewhere.text).not.toContain("secret-box");
        // The right code, by someone not throttled: the name, as the person approving must see it.
        const shown = await lookUp(pending.code, "198.51.100.22", ALICE);
        expect([shown.status, shown.json()]).toMatchObject([200, { name: "secret-box" }]);
        return {
          tried: 13,
          figure: `10 wrong codes (look-ups and approvals) → 404, then 429 for the 11th, for the right code from that address (alice) and for carol from another address; the name shown only to alice with the right code from her own address`,
        };
      },
    ),
  );

  it(
    "caps unauthenticated pairing starts in flight per address",
    attackCase(
      "Pairing: unauthenticated start flood",
      "40 parallel POST /api/machines/pair with no identity from one address (each would be an object with storage and an alarm), then one from another address",
      async () => {
        const flood = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            raw(stack.url, "/api/machines/pair", {
              method: "POST",
              headers: { ...json, "cf-connecting-ip": "203.0.113.40" },
              body: JSON.stringify({ name: `flood-${i}` }),
            }),
          ),
        );
        const made = flood.filter((r) => r.status === 201).length;
        const refused = flood.filter((r) => r.status === 429);
        expect([made, refused.length]).toEqual([10, 30]);
        const body = refused[0]?.json() as { error: { code: string; message: string; retryAfterMs: number } };
        expect(body.error).toMatchObject({
          code: "rate_limited",
          message: expect.stringMatching(/^Too many pairings started from your address: try again in \d+ s\.$/),
        });
        expect(body.error.retryAfterMs).toBeGreaterThan(0);
        const other = await raw(stack.url, "/api/machines/pair", { method: "POST", headers: { ...json, "cf-connecting-ip": "203.0.113.41" }, body: "{}" });
        expect(other.status).toBe(201);
        return {
          tried: 41,
          figure: `40 at once from one address: ${made} × 201, ${refused.length} × 429 rate_limited (retry in ${Math.ceil(body.error.retryAfterMs / 1000)} s); another address 201`,
        };
      },
    ),
  );

  it(
    "survives a hostile bridge: frames for others' requests, garbage and a flood",
    attackCase(
      "Paired machine: hostile bridge frames",
      "a bridge with a valid credential sends answers for requests never made, 25 invalid frames, then 3,000 frames at once",
      async () => {
        const pair = await raw(stack.url, "/api/machines/pair", { method: "POST", headers: json, body: JSON.stringify({ name: "hostile" }) });
        const { code, pollToken } = pair.json() as { code: string; pollToken: string };
        await raw(stack.url, "/api/machines/approve", { method: "POST", headers: { ...auth(ALICE), ...json }, body: JSON.stringify({ code }) });
        const { credential } = (
          await raw(stack.url, "/api/machines/pair/poll", { method: "POST", headers: json, body: JSON.stringify({ code, pollToken }) })
        ).json() as { credential: string };
        const open = () =>
          new Promise<{ ws: WebSocket; closed: Promise<number> }>((resolve, reject) => {
            const ws = new WebSocket(`${stack.url.replace(/^http/, "ws")}/machines/connect`, { headers: auth(credential) });
            const closed = new Promise<number>((done) => ws.on("close", (c) => done(c)));
            ws.on("open", () => resolve({ ws, closed }));
            ws.on("error", reject);
          });
        const first = await open();
        first.ws.send(JSON.stringify({ t: "hello", servers: ["everything"] }));
        for (let id = 0; id < 5; id++) first.ws.send(JSON.stringify({ t: "head", id, status: 200, headers: [] }));
        for (let i = 0; i < 25; i++) first.ws.send(i % 2 ? "not json" : JSON.stringify({ t: "sampling", id: i }));
        expect(await first.closed).toBe(1008);
        const second = await open();
        for (let i = 0; i < 3000; i++) second.ws.send(JSON.stringify({ t: "end", id: i }));
        expect(await second.closed).toBe(1008);
        // The account object is unharmed: alice's real machine still serves her.
        const direct = await call(ALICE, "laptop-everything.echo", { message: "still here" });
        expect(direct.status).toBe(200);
        return {
          tried: 3,
          figure: "answers for requests never made dropped; 25 invalid frames → closed 1008; 3,000-frame flood → closed 1008; alice's laptop still answers",
        };
      },
    ),
  );

  it(
    "ends at once when revoked, and its credential with it",
    attackCase(
      "Paired machine: revoked device credential",
      "alice removes her machine on the page while it is connected, then its old credential connects again",
      async () => {
        const credential = credentialOf(machine.dir);
        const removed = await raw(stack.url, `/api/machines/${machine.id}`, { method: "DELETE", headers: auth(ALICE) });
        expect(removed.status).toBe(204);
        expect(await machine.exited).toBe(4);
        expect(machine.output()).toContain("this machine was removed on the page");
        expect(existsSync(join(machine.dir, ".edgehost-device.json"))).toBe(false);
        expect((await tryUpgrade(stack.url, "/machines/connect", auth(credential))).status).toBe(401);
        expect((await call(ALICE, "laptop-everything.echo", { message: "x" })).status).not.toBe(200);
        // No secret in the Worker's log or the bridge's terminal.
        const secret = credential.split(".")[2] ?? "";
        expect(stack.workerLog()).not.toContain(secret);
        expect(machine.output()).not.toContain(secret);
        return { tried: 2, figure: "the connect process exited (code 4) and forgot its credential; the old credential 401; the secret in no log" };
      },
    ),
  );

  // Last: it fills the deployment's room for pairings, so no test after could start one.
  it(
    "caps unauthenticated pairing starts in flight for the whole deployment",
    attackCase(
      "Pairing: start flood from many addresses",
      "pairings started one by one, each from a new address, until the deployment refuses (PAIRINGS_PENDING_MAX 30 in this stack), then two more from new addresses",
      async () => {
        const start = (i: number) =>
          raw(stack.url, "/api/machines/pair", { method: "POST", headers: { ...json, "cf-connecting-ip": `192.0.2.${i + 1}` }, body: "{}" });
        let made = 0;
        let refused = await start(0);
        while (refused.status === 201 && made < 40) refused = await start(++made);
        expect(refused.status).toBe(429);
        const body = refused.json() as { error: { code: string; message: string; retryAfterMs: number } };
        expect(body.error).toMatchObject({
          code: "rate_limited",
          message: expect.stringMatching(/^Too many pairings are waiting for approval on this deployment: try again in \d+ s\.$/),
        });
        expect(made).toBeGreaterThan(0);
        expect(made).toBeLessThan(30);
        const after = [(await start(100)).status, (await start(101)).status];
        expect(after).toEqual([429, 429]);
        return {
          tried: made + 3,
          figure: `${made} more started from ${made} addresses, then 429 rate_limited for the deployment (30 in flight), and for 2 more new addresses`,
        };
      },
    ),
  );
});
