// list_changed reaches an app's clients when one of the person's servers changes its tools:
// the SDK's v2 server fixture adds a tool (`grow`), the app object's host hears the server's
// list_changed, and the object tells its 2026 listen streams and its live 2025 sessions.
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectApp, mcpClient } from "../../fixtures/gateway-direct";
import { authHeaders } from "../test-users";

const v2 = inject("v2BothUrl");
const json = { "content-type": "application/json" };
const server = `lc${crypto.randomUUID().slice(0, 6)}`;
const api = (path: string, init: RequestInit = {}) => SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders("alice", init.headers) });
/** A tool name the fixture accepts (`^[a-z_]{1,40}$`), new in this run. */
const freshName = () => `g_${[...crypto.getRandomValues(new Uint8Array(8))].map((b) => String.fromCharCode(97 + (b % 26))).join("")}`;

beforeAll(async () => {
  const added = await api("/api/my-servers", { method: "POST", headers: json, body: JSON.stringify({ name: server, url: v2, alwaysAllow: ["grow"] }) });
  expect(added.status).toBe(201);
});

afterAll(async () => {
  await api(`/api/my-servers/${server}`, { method: "DELETE" });
});

describe.each(["2026", "2025"] as const)("at %s", (era) => {
  it("tells the client its tool list changed when a server of the person's grows a tool", async () => {
    const { client } = await mcpClient(await connectApp("alice"), era);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain(`${server}__grow`);
      // Every list_changed counts: one may come first for a server of hers that finished connecting.
      let heard = 0;
      let wake: () => void = () => undefined;
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        heard++;
        wake();
      });
      const heardMoreThan = (count: number) =>
        new Promise<void>((resolve) => {
          wake = () => {
            if (heard > count) resolve();
          };
          wake();
        });
      // 2026: a listen stream asks for it; 2025: the session's GET stream carries it.
      const subscription = era === "2026" ? await client.listen({ toolsListChanged: true }) : undefined;
      const name = freshName();
      const grown = await client.callTool({ name: `${server}__grow`, arguments: { name } });
      expect(JSON.stringify(grown.content)).toContain(`added ${name}`);
      // Listed again after each notification until the grown tool is there (a test timeout if none says so).
      for (;;) {
        const seen = heard;
        if ((await client.listTools()).tools.some((t) => t.name === `${server}__${name}`)) break;
        await heardMoreThan(seen);
      }
      expect(heard).toBeGreaterThan(0);
      await subscription?.close();
    } finally {
      await client.close();
    }
  });
});
