// list_changed reaches an app's clients when one of the person's servers changes its tools:
// the SDK's v2 server fixture adds a tool (`grow`), the app object's host hears the server's
// list_changed, and the object tells its 2026 listen streams and its live 2025 sessions.
// And when the person's own servers change (a runtime server added or removed, a paired
// machine online or offline): the account tells the apps with a client listening, and
// only those (src/users/app-watchers.ts, src/gateway/stream-watch.ts).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { runInDurableObject, SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { GatewayApp } from "../../../src/gateway/GatewayApp";
import type { GrantProps } from "../../../src/gateway/props";
import { appStub, connectApp, directFetch, MCP_URL, mcpClient } from "../../fixtures/gateway-direct";
import { authHeaders, type TestUser } from "../test-users";
import { PlayedMachine } from "./played-machine";

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

/** Counts a client's tools/list_changed; `more(n)` settles once more than n were heard. */
class Heard {
  count = 0;
  private wake: () => void = () => undefined;

  constructor(client: Client) {
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      this.count++;
      this.wake();
    });
  }

  more(than: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = () => {
        if (this.count > than) resolve();
      };
      this.wake();
    });
  }
}

/**
 * A client of the app of `props` with a stream open: 2026 a listen stream, 2025 its session's
 * GET stream. Each settles only once the stream's response came back, and the app object hands
 * it back only after the account knows the app listens: a change made after this reaches it.
 */
async function listening(props: GrantProps, era: "2026" | "2025") {
  let streamOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (streamOpened = resolve));
  const app = directFetch(props.appId, props);
  const fetchSeeingGet: typeof fetch = async (input, init) => {
    const response = await app(input, init);
    if ((init?.method ?? "GET") === "GET" && response.ok) streamOpened();
    return response;
  };
  const client = new Client({ name: "gateway-test", version: "1.0.0" }, era === "2026" ? { versionNegotiation: { mode: "auto" } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: fetchSeeingGet }));
  const heard = new Heard(client);
  const subscription = era === "2026" ? await client.listen({ toolsListChanged: true }) : undefined;
  if (era === "2025") await opened;
  const close = async () => {
    await subscription?.close();
    await client.close();
  };
  return { client, heard, appId: props.appId, close };
}

/** Lists after each list_changed until `done` holds for the names (a test timeout if it never does). */
async function listUntil(client: Client, heard: Heard, done: (names: string[]) => boolean): Promise<string[]> {
  for (;;) {
    const seen = heard.count;
    const names = (await client.listTools()).tools.map((t) => t.name);
    if (done(names)) return names;
    await heard.more(seen);
  }
}

/** How often the person's account told the app object their servers changed. */
const ownerChanges = (appId: string) => runInDurableObject(appStub(appId), (app: GatewayApp) => app.ownerChanges);

const userApi = (user: TestUser, path: string, init: RequestInit = {}) =>
  SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders(user, init.headers) });

async function addServer(user: TestUser, name: string): Promise<void> {
  const added = await userApi(user, "/api/my-servers", { method: "POST", headers: json, body: JSON.stringify({ name, url: v2 }) });
  expect(added.status).toBe(201);
}

describe.each(["2026", "2025"] as const)("when the person's own servers change, at %s", (era) => {
  it("tells a listening app a server was added and removed; an app with no stream open is not woken", async () => {
    const listener = await listening(await connectApp("alice"), era);
    // Served requests (its object is up), but no client of it listens: a 2026 client that opened no listen
    // stream (a 2025 client opens its GET stream by itself).
    const idleProps = await connectApp("alice");
    const idle = (await mcpClient(idleProps, "2026")).client;
    const added = `ow${crypto.randomUUID().slice(0, 6)}`;
    try {
      expect((await idle.listTools()).tools.map((t) => t.name)).not.toContain(`${added}__grow`);
      // A notification first (a list read now would find the server anyway), then the list has it.
      let seen = listener.heard.count;
      await addServer("alice", added);
      await listener.heard.more(seen);
      await listUntil(listener.client, listener.heard, (names) => names.includes(`${added}__grow`));
      // The account told the app (not only a server of hers finishing its connect).
      expect(await ownerChanges(listener.appId)).toBeGreaterThan(0);
      seen = listener.heard.count;
      const removed = await userApi("alice", `/api/my-servers/${added}`, { method: "DELETE" });
      expect(removed.ok).toBe(true);
      await listener.heard.more(seen);
      await listUntil(listener.client, listener.heard, (names) => !names.includes(`${added}__grow`));
      expect(await ownerChanges(idleProps.appId)).toBe(0);
      // The idle app still lists what is there when it asks.
      expect((await idle.listTools()).tools.map((t) => t.name)).not.toContain(`${added}__grow`);
    } finally {
      await userApi("alice", `/api/my-servers/${added}`, { method: "DELETE" });
      await listener.close();
      await idle.close();
    }
  });
});

describe("whose change reaches whom", () => {
  it("tells bob's listening app of bob's new server and never alice's", async () => {
    const aliceProps = await connectApp("alice");
    const alice = await listening(aliceProps, "2026");
    const bob = await listening(await connectApp("bob"), "2026");
    const bobs = `bo${crypto.randomUUID().slice(0, 6)}`;
    try {
      const before = await ownerChanges(aliceProps.appId);
      const seen = bob.heard.count;
      await addServer("bob", bobs);
      await bob.heard.more(seen);
      await listUntil(bob.client, bob.heard, (names) => names.includes(`${bobs}__grow`));
      expect(await ownerChanges(bob.appId)).toBeGreaterThan(0);
      expect(await ownerChanges(aliceProps.appId)).toBe(before);
      expect((await alice.client.listTools()).tools.map((t) => t.name)).not.toContain(`${bobs}__grow`);
    } finally {
      await userApi("bob", `/api/my-servers/${bobs}`, { method: "DELETE" });
      await alice.close();
      await bob.close();
    }
  });

  it("tells a listening app its person's paired machine came online, and went away", async () => {
    const listener = await listening(await connectApp("frank"), "2026");
    const name = `lc${crypto.randomUUID().slice(0, 6)}`;
    // The machine's server as the chat names it (`{machine}-{server}`): its echo listed once the app heard the machine is online.
    const echo = (names: string[]) => names.find((n) => n.startsWith(`${name}-everything`) && n.endsWith("__echo"));
    expect(echo((await listener.client.listTools()).tools.map((t) => t.name))).toBeUndefined();
    let seen = listener.heard.count;
    const machine = await PlayedMachine.connect("frank", name, inject("everythingUrl"));
    let removed = false;
    try {
      await listener.heard.more(seen);
      expect(echo(await listUntil(listener.client, listener.heard, (list) => echo(list) !== undefined))).toBeDefined();
      expect(await ownerChanges(listener.appId)).toBeGreaterThan(0);
      seen = listener.heard.count;
      await machine.remove();
      removed = true;
      await listener.heard.more(seen);
      await listUntil(listener.client, listener.heard, (list) => echo(list) === undefined);
    } finally {
      if (!removed) await machine.remove();
      await listener.close();
    }
  });
});
