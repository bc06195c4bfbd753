// The Worker's logs as an operator reads them (issue: run it as a service), on the real
// stack (wrangler dev, the bridge, the fake Gemini) in AUTH_MODE=token at LOG_LEVEL=debug:
// every line is JSON; a request's line carries its request id, and the socket's request id
// reaches the session's lines of the turn it started (turn id, tool call, its end);
// refusals that are security events are at `warn` with their code; and no secret (the
// model key, the users' tokens, the bridge token, a user server's header value) appears
// in any line of the Worker or the bridge; nor does a user's own model key, through its
// test, a turn on it and a turn its provider refuses quoting the key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script, uniqueKey } from "../fixtures/fake-llm-script";
import { raw } from "../fixtures/raw-http";
import { openSession } from "../fixtures/session-client-node";
import { probeServerBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";

const ALICE = "alice-token-logs-0123456789abcd";
const BOB = "bob-token-logs-0123456789abcdef";
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    // The user's own provider below is the fake model on loopback: allowed as on an intranet deployment.
    vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}`, LOG_LEVEL: "debug", ALLOW_PRIVATE_SERVER_URLS: "true" },
    mcpServers: { probe: { command: process.execPath, args: [probeServerBin], users: ["alice"] } },
    bridgeArgs: ["--log-level", "debug"],
  });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

type Line = Record<string, unknown> & { level: string; msg: string };

/** The Worker's JSON log lines (wrangler dev also prints its own, non-JSON lines). */
function workerLines(): Line[] {
  return stack
    .workerLog()
    .split("\n")
    .map((line) => line.slice(line.indexOf("{")))
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as Line;
        return typeof parsed.msg === "string" && typeof parsed.level === "string" ? [parsed] : [];
      } catch {
        return [];
      }
    });
}

describe("the Worker's logs", () => {
  it("follow one turn from the socket's request through the session and its tool call, at their levels, with no secret anywhere", async () => {
    // A few refusals an operator must see.
    expect((await raw(stack.url, "/api/sessions", { headers: auth("not-a-valid-token-at-all-000") })).status).toBe(401);
    const foreign = { ...auth(ALICE), origin: "http://attacker.example", "content-type": "application/json" };
    expect((await raw(stack.url, "/sessions", { method: "POST", headers: foreign, body: "{}" })).status).toBe(403);
    // A signed-out page asking who it is: routine, not a security event.
    expect((await raw(stack.url, "/api/me")).status).toBe(401);

    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__write_file", { path: `${stack.fsRoot}/logged.txt`, content: "one turn, followed" }),
      reply.callReply("probe__log", {}),
      reply.text("Written."),
    ]);
    const sessionId = crypto.randomUUID();
    const socket = await openSession(stack.url, sessionId, { headers: auth(ALICE) });
    const from = socket.say("write a file");
    for (const tool of ["write_file", "log"]) {
      const request = await socket.next((m) => m.type === "approval_request" && m.tool === tool, from);
      socket.send({ type: "approval", callId: request.type === "approval_request" ? request.callId : "", approved: true });
    }
    const { end } = await socket.turnEnd(from, 30_000);
    expect(end.reason).toBe("complete");
    socket.close();

    // wrangler dev prints the session's last lines a moment after the socket saw the turn end.
    await expect.poll(() => workerLines().some((l) => l.msg === "turn ended" && l.session === sessionId), { timeout: 10_000, interval: 100 }).toBe(true);
    const lines = workerLines();
    // The upgrade's line, and the session's lines that carry its request id.
    const upgrade = lines.find((l) => l.msg === "request" && l.path === `/sessions/${sessionId}/ws`);
    expect(upgrade).toMatchObject({ level: "info", status: 101, user: "alice", method: "GET" });
    const requestId = String(upgrade?.requestId);
    expect(requestId.length).toBeGreaterThan(8);
    const started = lines.find((l) => l.msg === "turn started" && l.session === sessionId);
    expect(started).toMatchObject({ level: "debug", requestId, user: "alice", component: "session" });
    const turnId = String(started?.turnId);
    expect(lines.find((l) => l.msg === "turn ended" && l.turnId === turnId)).toMatchObject({ level: "info", requestId, reason: "complete" });
    expect(lines.find((l) => l.msg === "approval answered" && l.session === sessionId)).toMatchObject({ requestId, approved: true });
    expect(lines.find((l) => l.msg === "tool call" && l.session === sessionId)).toMatchObject({
      level: "debug",
      server: "filesystem",
      tool: "write_file",
      turnId,
    });
    // Servers connect side by side: each has its line, in either order.
    for (const server of ["filesystem", "probe"])
      expect(lines.some((l) => l.msg === "server ready" && l.session === sessionId && l.server === server)).toBe(true);
    // The MCP server's own log message, under its name at its level.
    expect(lines.find((l) => l.msg === "server log" && l.session === sessionId)).toMatchObject({
      level: "info",
      server: "probe",
      logger: "probe",
      data: "probe says hi",
    });

    // The turn's trace reaches the bridge: its request lines and the stdio server's stderr line name it.
    const trace = String(started?.trace);
    expect(trace).toMatch(/^[0-9a-f]{32}$/);
    const bridgeLines = stack.bridge
      .stderr()
      .split("\n")
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Line];
        } catch {
          return [];
        }
      });
    expect(bridgeLines.filter((l) => l.msg === "request" && l.trace === trace).map((l) => l.server)).toEqual(expect.arrayContaining(["filesystem", "probe"]));
    expect(bridgeLines.find((l) => l.msg === "server stderr" && l.line === "probe wrote this to stderr")).toMatchObject({ server: "probe", trace });

    // Security events at warn, with their code and no message (it could quote input).
    const refused = lines.filter((l) => l.msg === "request refused");
    expect(refused.map((l) => [l.level, l.status, l.code])).toEqual(
      expect.arrayContaining([
        ["warn", 401, "bad_token"],
        ["warn", 403, "forbidden_origin"],
      ]),
    );
    expect(lines.filter((l) => l.path === "/api/me").map((l) => [l.msg, l.level, l.status, l.code])).toEqual([["request", "info", 401, "unauthenticated"]]);

    // Every line of the Worker that looks like JSON is one; no secret in the Worker's or the bridge's output.
    for (const secret of [ALICE, BOB, stack.llmKey, stack.bridge.token]) {
      expect(stack.workerLog()).not.toContain(secret);
      expect(stack.bridge.stderr()).not.toContain(secret);
    }
  });

  it("never log a user's own model key, nor answer it, whatever its provider says", async () => {
    const key = uniqueKey("own-key-logs");
    const json = { ...auth(ALICE), "content-type": "application/json" };
    const entry = { id: "mine", kind: "openai", baseUrl: `${stack.llm.url}/v1`, apiKey: key, models: ["own-model"] };
    // A provider that quotes the key it refuses (as OpenAI does): once to the Test button, once to a turn.
    const refusal = reply.error(401, {}, { error: { message: `Incorrect API key provided: ${key}` } });
    await script(stack.llm.url, key, [refusal, reply.text("Own key works."), refusal]);
    const answers = [
      await raw(stack.url, "/api/my-providers/test", { method: "POST", headers: json, body: JSON.stringify(entry) }),
      await raw(stack.url, "/api/my-providers", { method: "POST", headers: json, body: JSON.stringify(entry) }),
      await raw(stack.url, "/api/my-providers", { headers: auth(ALICE) }),
      await raw(stack.url, "/api/models", { headers: auth(ALICE) }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 201, 200, 200]);
    for (const answer of answers) expect(answer.text).not.toContain(key);

    const socket = await openSession(stack.url, crypto.randomUUID(), { headers: auth(ALICE) });
    let from = socket.received.length;
    socket.send({ type: "set_model", provider: "user:mine", model: "own-model" });
    await socket.next((m) => m.type === "model" && m.choice?.provider === "user:mine", from);
    from = socket.say("hello");
    expect((await socket.turnEnd(from, 30_000)).end.reason).toBe("complete");
    from = socket.say("again");
    const failed = await socket.turnEnd(from, 30_000);
    expect(failed.end.reason).toBe("error");
    expect(failed.messages.find((m) => m.type === "error")).toMatchObject({
      code: "llm",
      message: expect.stringContaining("Incorrect API key provided: ••••••"),
    });
    socket.close();

    expect(JSON.stringify(socket.received)).not.toContain(key);
    // The refused turn is logged (at warn, with the provider's message, scrubbed); wrangler dev prints it a moment after the socket saw the turn end.
    await expect
      .poll(() => workerLines().find((l) => l.msg === "turn failed" && String(l.error).includes("Incorrect API key provided: ••••••")), {
        timeout: 10_000,
        interval: 100,
      })
      .toMatchObject({ level: "warn" });
    expect(stack.workerLog()).not.toContain(key);
  });
});
