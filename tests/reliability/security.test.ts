// Security, against the real stack (wrangler dev + bridge + server-filesystem +
// fake Gemini): the bridge's token and Host/Origin checks, path traversal through
// the filesystem tools, approval that cannot be skipped, and no secret in any
// response, WebSocket message or log line.
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import type { SessionClient } from "../fixtures/session-client";
import { openSession } from "../fixtures/session-client-node";
import { recordRow } from "../fixtures/reliability-rows";

let stack: Stack;
const seen: string[] = [];

beforeAll(async () => {
  stack = await startStack();
  mkdirSync(join(stack.fsRoot, "inner"));
  // A link inside the allowed folder that points outside it.
  symlinkSync("/etc/hostname", join(stack.fsRoot, "inner", "escape"));
});
afterAll(async () => {
  await stack?.stop();
});

async function http(path: string, init?: RequestInit, base = stack.url): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  seen.push(text);
  return { status: response.status, text };
}

const callTool = (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  http(`/api/tools/${name}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ arguments: args, ...extra }) });

describe("security", () => {
  it("bridge: no token or a wrong one is refused everywhere; an open /health says only ok", async () => {
    const bridge = stack.bridge.url;
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const results = [
      await http("/servers/filesystem/mcp", { method: "POST", headers, body }, bridge),
      await http("/servers/filesystem/mcp", { method: "POST", headers: { ...headers, authorization: "Bearer wrong" }, body }, bridge),
      await http("/metrics", {}, bridge),
      await http("/servers/filesystem/sse", { headers: { authorization: "Basic abc" } }, bridge),
    ];
    expect(results.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    const health = await http("/health", {}, bridge);
    expect(health).toEqual({ status: 200, text: JSON.stringify({ ok: true }) });
    recordRow({
      suite: "Security",
      scenario: "bridge without / with a wrong token",
      done: "initialize, /metrics and /sse without a token, with a wrong one, with Basic auth",
      figure: "4/4 refused with 401; /health open but only ok/not ok",
      pass: true,
    });
  });

  it("bridge: a foreign Host or Origin is refused (DNS rebinding)", async () => {
    const { request } = await import("node:http");
    const url = new URL(stack.bridge.url);
    const get = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: url.hostname, port: url.port, path: "/metrics", headers: { authorization: `Bearer ${stack.bridge.token}`, ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end();
      });
    expect(await get({ host: `attacker.example:${url.port}` })).toBe(403);
    expect(await get({ host: url.host, origin: "http://attacker.example" })).toBe(403);
    expect(await get({ host: url.host })).toBe(200);
    recordRow({
      suite: "Security",
      scenario: "foreign Host / Origin at the bridge",
      done: "Host attacker.example, Origin http://attacker.example, with the right token",
      figure: "both 403; loopback Host 200",
      pass: true,
    });
  });

  it("filesystem tools stay inside the allowed folder", async () => {
    const root = stack.fsRoot;
    const attempts = [
      ["filesystem.read_text_file", { path: `${root}/../../../etc/passwd` }],
      ["filesystem.read_text_file", { path: "/etc/passwd" }],
      ["filesystem.read_text_file", { path: `${root}/sub/../../etc/passwd` }],
      ["filesystem.read_text_file", { path: `${root}/inner/escape` }],
      ["filesystem.list_directory", { path: `${root}/..` }],
      ["filesystem.list_directory", { path: "/" }],
      ["filesystem.read_text_file", { path: `${root}/%2e%2e/%2e%2e/etc/passwd` }],
    ] as const;
    const outcomes: string[] = [];
    for (const [tool, args] of attempts) {
      const { status, text } = await callTool(tool, args);
      outcomes.push(`${status}`);
      expect(text).not.toMatch(/root:x:0:0|\[DIR\] (etc|usr|proc)\b/);
      const body = JSON.parse(text) as { result?: { isError?: boolean }; error?: unknown };
      // Refused: the tool reports an error (isError) or the call fails.
      expect(body.error !== undefined || body.result?.isError === true).toBe(true);
    }
    // Through the model too: the traversal comes back as a tool error.
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__read_text_file", { path: `${root}/../../../etc/passwd` }),
      reply.text("Not allowed."),
    ]);
    const socket = await openSession(stack.url, crypto.randomUUID());
    const { messages } = await socket.turnEnd(socket.say("read /etc/passwd via .."));
    seen.push(JSON.stringify(messages));
    const status = messages.find((m) => m.type === "status" && m.state !== "processing");
    expect(status).toMatchObject({ state: "error" });
    expect(JSON.stringify(messages)).not.toContain("root:x:0:0");
    await socket.close();
    recordRow({
      suite: "Security",
      scenario: "path traversal through the filesystem tools",
      done: `${attempts.length} paths outside the root (.., absolute, symlink, encoded) via the API, 1 via a model call`,
      figure: `all refused (statuses ${outcomes.join(",")}); no file content leaked`,
      pass: true,
    });
  });

  it("a tool not in alwaysAllow never runs without approval", async () => {
    const target = (name: string) => join(stack.fsRoot, name);
    // API without approval.
    const api = await callTool("filesystem.write_file", { path: target("api.txt"), content: "x" });
    expect(api.status).toBe(403);
    expect(existsSync(target("api.txt"))).toBe(false);
    // Model call, denied.
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__write_file", { path: target("denied.txt"), content: "x" }, { id: "w1" }),
      reply.text("ok"),
    ]);
    const socket: SessionClient = await openSession(stack.url, crypto.randomUUID());
    const denied = socket.turnEnd(socket.say("write it"));
    const first = await socket.next((m) => m.type === "approval_request");
    socket.send({ type: "approval", callId: first.type === "approval_request" ? first.callId : "", approved: false });
    await denied;
    expect(existsSync(target("denied.txt"))).toBe(false);
    // Model call, never answered, then cancelled.
    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__write_file", { path: target("ignored.txt"), content: "x" }, { id: "w2" })]);
    const from = socket.received.length;
    const ignored = socket.turnEnd(socket.say("write another"));
    const second = await socket.next((m) => m.type === "approval_request", from);
    const secondId = second.type === "approval_request" ? second.callId : "";
    socket.send({ type: "cancel" });
    const { end } = await ignored;
    expect(end.reason).toBe("cancelled");
    expect(existsSync(target("ignored.txt"))).toBe(false);
    // Approving someone else's call id does nothing.
    socket.send({ type: "approval", callId: secondId, approved: true });
    await socket.next((m) => m.type === "error" && m.code === "unknown_approval");
    expect(existsSync(target("ignored.txt"))).toBe(false);
    seen.push(JSON.stringify(socket.received));
    await socket.close();
    recordRow({
      suite: "Security",
      scenario: "approval cannot be skipped",
      done: "write_file via the API without approved, via the model denied, unanswered then cancelled, late approval of a finished call",
      figure: "0 of 4 writes happened",
      pass: true,
    });
  });

  it("no secret in any response, WebSocket message or log line", async () => {
    for (const path of ["/", "/oauth-callback.js", "/api/health", "/api/servers", "/api/metrics", "/sessions/x/history", "/nope"]) await http(path);
    const secrets = { GEMINI_API_KEY: stack.llmKey, BRIDGE_TOKEN: stack.bridge.token };
    const outputs = { responses: seen.join("\n"), workerLog: stack.workerLog(), bridgeLog: stack.bridge.stderr() };
    const leaks = Object.entries(secrets).flatMap(([name, value]) =>
      Object.entries(outputs)
        .filter(([, text]) => text.includes(value))
        .map(([where]) => `${name} in ${where}`),
    );
    expect(leaks).toEqual([]);
    recordRow({
      suite: "Security",
      scenario: "no secret in outputs",
      done: `grepped ${seen.length} HTTP bodies and WS transcripts, the wrangler dev log and the bridge log for GEMINI_API_KEY and BRIDGE_TOKEN`,
      figure: `${leaks.length} leaks`,
      pass: leaks.length === 0,
    });
  });
});
