// "My servers" in a deployed Worker (issue 20.6), on the real stack in AUTH_MODE=token:
// requests that name a public Host (chat.example.com) count as deployed, and a runtime
// server on loopback, private or link-local addresses, or the Worker itself, is refused
// when added, edited and tested; an entry stored earlier is refused when a session connects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../fixtures/raw-http";
import { openSession } from "../fixtures/session-client-node";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const ALICE = "alice-token-server-urls-0123456";
const headers = (host?: string) => ({ authorization: `Bearer ${ALICE}`, "content-type": "application/json", ...(host ? { host } : {}) });

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ model: false, vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE}` } });
});
afterAll(async () => {
  await stack?.stop();
});

describe("runtime server addresses", () => {
  it(
    "are refused on loopback, private and link-local addresses and the Worker's own host",
    attackCase(
      "My servers reaches what it should not (issue 20.6)",
      "add, edit and test servers at the Worker itself, its inspector port, 2130706433, 0x7f000001, [::ffff:127.0.0.1], 169.254.169.254, 10.0.0.1, localhost, the Worker's public host, with Host: chat.example.com (before the fix: accepted and fetched)",
      async () => {
        const port = new URL(stack.url).port;
        const urls = [
          `http://127.0.0.1:${port}/api/health`,
          "http://127.0.0.1:9229/json",
          "http://2130706433/mcp",
          "http://0x7f000001/mcp",
          "http://[::ffff:127.0.0.1]/mcp",
          "http://169.254.169.254/latest/meta-data",
          "http://10.0.0.1/mcp",
          "http://localhost:8787/mcp",
          "https://chat.example.com/api/me",
        ];
        const answers: { status: number; code: unknown }[] = [];
        for (const [i, url] of urls.entries()) {
          const added = await raw(stack.url, "/api/my-servers", {
            method: "POST",
            headers: headers("chat.example.com"),
            body: JSON.stringify({ name: `probe${i}`, url }),
          });
          answers.push({ status: added.status, code: (added.json().error as { code?: string } | undefined)?.code });
        }
        expect(answers).toEqual(urls.map(() => ({ status: 400, code: "server_url_refused" })));
        // Stored earlier (from loopback, where it is allowed), then edited and tested from the public host.
        const stored = await raw(stack.url, "/api/my-servers", {
          method: "POST",
          headers: headers(),
          body: JSON.stringify({ name: "inner", url: `http://127.0.0.1:${port}/api/health`, disabled: true }),
        });
        expect(stored.status).toBe(201);
        const edited = await raw(stack.url, "/api/my-servers/inner", {
          method: "PUT",
          headers: headers("chat.example.com"),
          body: JSON.stringify({ name: "inner", url: `http://127.0.0.1:${port}/api/health` }),
        });
        const tested = await raw(stack.url, "/api/my-servers/inner/test", { method: "POST", headers: headers("chat.example.com"), body: "{}" });
        expect([edited.status, tested.status]).toEqual([400, 400]);
        expect(tested.text).toContain("loopback addresses");
        return { tried: urls.length + 2, figure: `${urls.length + 2}/${urls.length + 2} refused with 400 server_url_refused, naming the rule` };
      },
    ),
  );

  it(
    "are refused when a session connects to one stored earlier",
    attackCase(
      "A runtime server on loopback stored earlier, connected by a session",
      "an enabled entry at the Worker's own loopback port, saved from loopback, then a session of the deployed (token) Worker opens",
      async () => {
        const port = new URL(stack.url).port;
        const saved = await raw(stack.url, "/api/my-servers", {
          method: "POST",
          headers: headers(),
          body: JSON.stringify({ name: "inner2", url: `http://127.0.0.1:${port}/api/health`, disabled: true }),
        });
        expect(saved.status).toBe(201);
        // Enabled without a test from loopback development: the entry a session reads later.
        const enabled = await raw(stack.url, "/api/my-servers/inner2", {
          method: "PUT",
          headers: headers(),
          body: JSON.stringify({ name: "inner2", url: `http://127.0.0.1:${port}/api/health` }),
        });
        expect([200, 400]).toContain(enabled.status);
        const socket = await openSession(stack.url, crypto.randomUUID(), { headers: { authorization: `Bearer ${ALICE}` } });
        socket.say("hello");
        const servers = await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "inner2" && s.state === "unavailable"));
        const inner = servers.type === "servers" ? servers.servers.find((s) => s.name === "inner2") : undefined;
        expect(inner?.lastError).toContain("cannot be reached from a deployed Worker");
        socket.close();
        return { tried: 1, figure: `not connected: "${inner?.lastError?.slice(0, 90)}…"` };
      },
    ),
  );
});
