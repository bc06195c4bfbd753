// Cache hints on what a 2026 client may keep (SEP-2549), for a 2025 child that gives none:
// a list carries a ttl while the child announces that list's changes (the bridge hears
// them and passes them on), a resource while the bridge holds the child's subscription to
// it; 0 otherwise. A shared child's lists are public, a per-user child's private.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "../fixtures/bridge";
import { envelope, modernHeaders, postRaw } from "../fixtures/bridge-modern";
import { repoRoot } from "../fixtures/servers";
import { VOUCHED_TTL_MS } from "../../local-bridge/src/modern-cache";

const askingBin = `${repoRoot}/tests/fixtures/asking-server.mjs`;
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge(
    {
      shared: { command: process.execPath, args: [askingBin] },
      mine: { command: process.execPath, args: [askingBin], isolation: "user" },
    },
    ["--no-watch"],
  );
});
afterAll(async () => {
  await bridge?.stop();
});

const ask = (server: string, id: number, method: string, params: Record<string, unknown> = {}, name?: string) =>
  postRaw(
    bridge,
    server,
    { jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope() } },
    { ...modernHeaders(method, name), "x-edgehost-user": "ada" },
  );

describe("bridge, cache hints for a 2025 child", () => {
  it("vouches for a list whose changes the child announces, not for one it does not", async () => {
    expect((await ask("shared", 1, "tools/list")).json.result).toMatchObject({ ttlMs: VOUCHED_TTL_MS, cacheScope: "public" });
    // The child's prompts capability has no listChanged.
    expect((await ask("shared", 2, "prompts/list")).json.result).toMatchObject({ ttlMs: 0, cacheScope: "public" });
    expect((await ask("mine", 3, "tools/list")).json.result).toMatchObject({ ttlMs: VOUCHED_TTL_MS, cacheScope: "private" });
  });

  it("vouches for a resource only while the bridge holds the child's subscription to it", async () => {
    const uri = "asking://note";
    expect((await ask("shared", 4, "resources/read", { uri }, uri)).json.result).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    const controller = new AbortController();
    const listen = await fetch(`${bridge.url}/servers/shared/mcp`, {
      method: "POST",
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${bridge.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-edgehost-user": "ada",
        ...modernHeaders("subscriptions/listen"),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "subscriptions/listen",
        params: { notifications: { resourceSubscriptions: [uri] }, _meta: envelope() },
      }),
    });
    const reader = listen.body?.getReader();
    // The acknowledgement comes once the stream is open; the child's subscribe is sent right after it.
    await reader?.read();
    try {
      await expect.poll(async () => (await ask("shared", 6, "resources/read", { uri }, uri)).json.result.ttlMs).toBe(VOUCHED_TTL_MS);
    } finally {
      controller.abort();
    }
  });
});
