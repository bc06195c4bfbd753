// The outsider against `npm run dev`'s setup: wrangler dev on 127.0.0.1 with no
// AUTH_MODE (mode "none", loopback only). A page the developer visits (served
// from another loopback port, in real Chromium) tries to reach the Worker; a
// request under a public-looking Host finds a deployment with no sign-in; a
// socket smuggles agents' own frames. Rows and the tally go to RELIABILITY.md.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { raw, tryUpgrade } from "../fixtures/raw-http";
import { startStack, type Stack } from "../fixtures/stack";
import { openSession } from "../fixtures/session-client-node";
import { recordRow } from "../fixtures/reliability-rows";
import { attackCase, attackTally } from "./record";

let stack: Stack;
let browser: Browser;
let evil: Server;
let evilOrigin = "";
let victim = "";

// What the attacker's page runs in the developer's browser: open the victim session's
// socket, POST a tool call (no-cors text/plain, then a classic form), read the history.
const ATTACK = `
(async () => {
  const q = new URLSearchParams(location.search);
  const worker = q.get("worker"), id = q.get("id"), path = q.get("path");
  const socket = await new Promise((resolve) => {
    const ws = new WebSocket(worker.replace("http", "ws") + "/sessions/" + id + "/ws");
    const frames = [];
    let opened = false;
    ws.onopen = () => (opened = true);
    ws.onmessage = (e) => frames.push(String(e.data));
    ws.onclose = () => resolve({ opened, frames });
  });
  const body = JSON.stringify({ arguments: { path, content: "pwned" }, approved: true });
  const post = await fetch(worker + "/api/tools/filesystem.write_file", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body }).then((r) => r.type, (e) => "error: " + e.message);
  const frame = document.createElement("iframe");
  frame.name = "sink";
  document.body.append(frame);
  const form = Object.assign(document.createElement("form"), { method: "POST", action: worker + "/api/tools/filesystem.write_file", target: "sink", enctype: "text/plain" });
  form.append(Object.assign(document.createElement("input"), { name: body.slice(0, -1) + ',"x":"', value: '"}' }));
  document.body.append(form);
  const loaded = new Promise((resolve) => frame.addEventListener("load", resolve, { once: true }));
  form.submit();
  await loaded;
  const corsRead = await fetch(worker + "/sessions/" + id + "/history").then((r) => r.text(), (e) => "error: " + e.message);
  const opaqueRead = await fetch(worker + "/sessions/" + id + "/history", { mode: "no-cors" }).then(async (r) => r.type + ":" + (await r.text()).length);
  window.attack = { socket, post, corsRead, opaqueRead };
  window.attackDone = true;
})();
`;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startStack(),
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    }),
  ]);
  // The attacker's page: any site the developer has open, here on another loopback port.
  evil = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>cats</title><script>${ATTACK}</script>`));
  await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
  evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  // A conversation worth stealing.
  victim = crypto.randomUUID();
  await script(stack.llm.url, stack.llmKey, [reply.text("the launch code is 0000")]);
  const socket = await openSession(stack.url, victim);
  await socket.turnEnd(socket.say("what is the launch code?"));
  socket.close();
});
afterAll(async () => {
  recordRow({
    suite: "Security",
    scenario: "Local-dev attacks: total",
    done: "every attempt in this file (foreign page in Chromium, public Host, smuggled frames)",
    figure: `${attackTally.tried} attempts, ${attackTally.through} got through`,
    pass: attackTally.through === 0,
  });
  await browser?.close();
  await new Promise((resolve) => evil?.close(resolve));
  await stack?.stop();
});

describe("a page from another origin, in Chromium", () => {
  it(
    "cannot open a session's WebSocket, read its history or run a tool",
    attackCase(
      "Foreign page (another loopback port) against wrangler dev",
      "in Chromium: WebSocket to a session with history; no-cors text/plain POST of write_file with approved=true; a form POST; a CORS read of the history; a no-cors read",
      async () => {
        const page = await browser.newPage();
        const target = join(stack.fsRoot, "from-evil.txt");
        await page.goto(`${evilOrigin}/?${new URLSearchParams({ worker: stack.url, id: victim, path: target })}`);
        await page.waitForFunction("window.attackDone === true");
        const outcome = (await page.evaluate("window.attack")) as {
          socket: { opened: boolean; frames: string[] };
          post: string;
          corsRead: string;
          opaqueRead: string;
        };
        await page.close();
        expect(outcome.socket).toEqual({ opened: false, frames: [] });
        expect(outcome.corsRead).toMatch(/^error/);
        expect(outcome.opaqueRead).toBe("opaque:0");
        expect(existsSync(target)).toBe(false);
        expect(JSON.stringify(outcome)).not.toContain("launch code");
        return {
          tried: 5,
          figure: `WebSocket never opened (0 frames); no-cors POST ${outcome.post}, form POST: no file written; CORS read failed; no-cors read opaque and empty`,
        };
      },
    ),
  );
});

describe("a deployment reached under a public host with no AUTH_MODE", () => {
  it(
    "answers every route 503 naming what to set",
    attackCase(
      "Public Host, no AUTH_MODE (a deployed Worker left unconfigured; DNS rebinding to 127.0.0.1)",
      "GET /api/health, /api/sessions, /api/servers, /sessions/{id}/history, POST /sessions, POST /api/tools, DELETE /sessions/{id} and a WebSocket upgrade with Host edgehost.example.com and with Host rebind.attacker.example:8787",
      async () => {
        const statuses: number[] = [];
        const bodies: string[] = [];
        for (const host of ["edgehost.example.com", "rebind.attacker.example:8787"]) {
          const requests: [string, string, string?][] = [
            ["GET", "/api/health"],
            ["GET", "/api/sessions"],
            ["GET", "/api/servers"],
            ["GET", `/sessions/${victim}/history`],
            ["POST", "/sessions", "{}"],
            ["POST", "/api/tools/filesystem.list_directory", JSON.stringify({ arguments: { path: stack.fsRoot } })],
            ["DELETE", `/sessions/${victim}`],
          ];
          for (const [method, path, body] of requests) {
            const answer = await raw(stack.url, path, { method, headers: { host, "content-type": "application/json" }, body });
            statuses.push(answer.status);
            bodies.push(answer.text);
          }
          statuses.push((await tryUpgrade(stack.url, `/sessions/${victim}/ws`, { host })).status);
        }
        expect(statuses).toEqual(statuses.map(() => 503));
        for (const body of bodies)
          expect(JSON.parse(body)).toMatchObject({ error: { code: "auth_not_configured", message: expect.stringContaining("AUTH_MODE") } });
        expect(bodies.join()).not.toContain("launch code");
        // The victim's session is still there for its owner on localhost.
        expect((await raw(stack.url, `/sessions/${victim}/history`)).json().entries).toHaveLength(2);
        return {
          tried: statuses.length,
          figure: `${statuses.length}/${statuses.length} answered 503 auth_not_configured naming AUTH_MODE / ACCESS_* variables`,
        };
      },
    ),
  );
});

describe("agents' own frames on a session socket", () => {
  it(
    "never reach agents' RPC or state handlers, however they are escaped",
    attackCase(
      "Smuggled agents frames",
      'escaped {"type":"\\u0072pc"} calling deleteSession, plain rpc calling getHistory, escaped \\u0063f_agent_state, cf_agent_mcp_servers, and a 70 KB escaped rpc frame',
      async () => {
        const socket = await openSession(stack.url, victim);
        const frames = [
          '{"type":"\\u0072pc","id":"a1","method":"deleteSession","args":[]}',
          '{"type":"rpc","id":"a2","method":"getHistory","args":[]}',
          '{"type":"\\u0063f_agent_state","state":{"owner":"mallory"}}',
          '{ "type" : "cf_agent_mcp_servers", "mcp": {} }',
          `{"type":"\\u0072pc","id":"a3","method":"deleteSession","args":[],"pad":"${"x".repeat(70_000)}"}`,
        ];
        const errors: string[] = [];
        for (const frame of frames) {
          const from = socket.received.length;
          socket.send(frame);
          const error = await socket.next((m) => m.type === "error", from);
          errors.push((error as { code: string }).code);
        }
        expect(errors).toEqual(["unknown_type", "unknown_type", "unknown_type", "unknown_type", "frame_too_large"]);
        const leaked = socket.received.filter(
          (m) => !["connection", "history", "model", "always_allowed", "schedules", "servers", "error", "entry", "pong"].includes(m.type),
        );
        expect(leaked).toEqual([]);
        socket.close();
        expect((await raw(stack.url, `/sessions/${victim}/history`)).json().entries).toHaveLength(2);
        return {
          tried: frames.length,
          figure: `${frames.length}/${frames.length} answered with an error frame (${[...new Set(errors)].join(", ")}); no rpc or state reply; history intact`,
        };
      },
    ),
  );
});
