// /mcp's app object with the SDK's own v2 client, both eras, reached directly (the OAuth in
// front of it is auth-server.test.ts's): the person's tools under the chat's names, a call
// to their runtime server (server-everything over Streamable HTTP), a tool that would need
// approval in the chat refused unrun, tokens of another generation or person refused, and a
// fresh app answering tools/list from the account's catalogue alone.
import { env, runInDurableObject } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { serverKey } from "../../../src/session/mcp/discovery-cache";
import { userAccount } from "../../../src/users/account";
import { Approvals } from "../../../src/approval/approvals";
import { AppSettings } from "../../../src/gateway/app-settings";
import { machineServerUrl } from "../../../src/machines/tunnel-url";
import { machineServers } from "../../../src/servers/machines";
import { appStub, connectApp, directFetch, identityOf, MCP_URL, mcpClient } from "../../fixtures/gateway-direct";
import { PlayedMachine } from "./played-machine";
import { SELF } from "cloudflare:test";
import { authHeaders } from "../test-users";

/** The Worker as alice's API client, at the https origin /mcp's resource is on. */
const workerFetch = (path: string, init: RequestInit = {}) =>
  SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders("alice", init.headers) });

const everything = inject("everythingUrl");
const server = `gw${crypto.randomUUID().slice(0, 6)}`;
const json = { "content-type": "application/json" };
let chatNames: string[] = [];

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const rawInitialize = (fetcher: typeof fetch) =>
  fetcher(MCP_URL, { method: "POST", headers: { ...json, accept: "application/json, text/event-stream" }, body: initialize });

beforeAll(async () => {
  // Echo runs unasked (alwaysAllow); get-sum would ask in the chat.
  const added = await workerFetch("/api/my-servers", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ name: server, url: everything, alwaysAllow: ["echo"] }),
  });
  expect(added.status).toBe(201);
  const { id } = (await (await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" })).json()) as { id: string };
  const servers = (await (await workerFetch(`/api/servers?session=${id}`)).json()) as { servers: { name: string; tools: { functionName: string }[] }[] };
  chatNames = (servers.servers.find((s) => s.name === server)?.tools ?? []).map((t) => t.functionName).sort();
  expect(chatNames).toContain(`${server}__echo`);
});

afterAll(async () => {
  await workerFetch(`/api/my-servers/${server}`, { method: "DELETE" });
});

describe.each([
  ["2026", "2026-07-28"],
  ["2025", "2025-11-25"],
] as const)("the SDK's client at %s", (era, version) => {
  it("discovers the person's tools under the chat's names and calls their runtime server", async () => {
    const props = await connectApp("alice");
    const { client, transport } = await mcpClient(props, era);
    try {
      expect(transport.protocolVersion).toBe(version);
      expect(client.getInstructions()).toContain(`${server}: its tools are named ${server}__<tool>`);
      const { tools } = await client.listTools();
      const ours = tools.filter((t) => String(t._meta?.["io.edgehost/qualifiedName"]).startsWith(`${server}.`));
      expect(ours.map((t) => t.name).sort()).toEqual(chatNames);
      expect(ours.find((t) => t.name === `${server}__echo`)?._meta).toEqual({ "io.edgehost/qualifiedName": `${server}.echo` });

      const echoed = await client.callTool({ name: `${server}__echo`, arguments: { message: `hello at ${era}` } });
      expect(echoed.isError).not.toBe(true);
      expect(JSON.stringify(echoed.content)).toContain(`hello at ${era}`);
      // The upstream's own protocol _meta (its serverInfo) stays at its hop: at most this server's own.
      expect([undefined, "edgehost"]).toContain((echoed._meta?.["io.modelcontextprotocol/serverInfo"] as { name?: string } | undefined)?.name);

      // get-sum asks in the chat: this client cannot be asked (no elicitation), so it is refused, never run (approvals.test.ts asks).
      await expect(client.callTool({ name: `${server}__get-sum`, arguments: { a: 1, b: 2 } })).rejects.toMatchObject({
        code: -32600,
        data: { code: "approval_required" },
        message: expect.stringContaining("this client cannot ask you"),
      });
      await expect(client.callTool({ name: "no_such__tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
      // Bad arguments are the model's to correct: an error result naming them.
      const bad = await client.callTool({ name: `${server}__echo`, arguments: { message: 42 } });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain("message");
    } finally {
      await client.close();
    }
  });
});

describe("who the app object serves", () => {
  it("refuses a token of another generation and another person's props with 401", async () => {
    const props = await connectApp("alice");
    expect((await rawInitialize(directFetch(props.appId, props))).status).toBe(200);
    const stale = await rawInitialize(directFetch(props.appId, { ...props, gen: 2 }));
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toContain("invalid_token");
    expect((await rawInitialize(directFetch(props.appId, { ...props, identity: identityOf("bob") }))).status).toBe(401);
    // A request without the Worker's header never reaches a lane.
    const bare = await (env as unknown as Env).GATEWAY_APP.get((env as unknown as Env).GATEWAY_APP.idFromName(props.appId)).fetch(
      new Request(MCP_URL, { method: "POST", headers: { ...json, accept: "application/json, text/event-stream" }, body: initialize }),
    );
    expect(bare.status).toBe(401);
  });

  it("leaves out mcp.json's servers marked \"gateway\": false, which the person's chats still have", async () => {
    const mine = (await (await SELF.fetch("https://edgehost.test/api/my-servers", { headers: authHeaders("erin") })).json()) as { deployment: string[] };
    expect(mine.deployment).toEqual(["isolated"]);
    const { client } = await mcpClient(await connectApp("erin"), "2026");
    try {
      expect((await client.listTools()).tools.filter((t) => t.name.startsWith("isolated__"))).toEqual([]);
      expect(client.getInstructions()).not.toContain("isolated");
    } finally {
      await client.close();
    }
  });

  it("answers tools/list of a fresh app from the account's catalogue while the machine has answered nothing, then calls the machine", async () => {
    const machine = await PlayedMachine.connect("frank", `gw${crypto.randomUUID().slice(0, 6)}`, everything);
    try {
      // The account's row for the machine's server, as a chat of frank's would have kept it.
      const account = userAccount(env as unknown as Env, "token:frank");
      const { machines = [] } = await account.serversSnapshot();
      const config = machineServers(machines).servers.find((s) => s.url === machineServerUrl(machine.id, "everything"));
      if (!config) throw new Error("the paired machine's server is not among frank's");
      const echo = {
        server: config.name,
        name: "echo",
        qualifiedName: `${config.name}.echo`,
        functionName: `${config.name}__echo`,
        inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
      };
      const key = serverKey(config);
      await account.keepDiscovery([{ server: config.name, key, row: JSON.stringify({ key, tools: [echo] }) }]);

      machine.hold();
      const props = await connectApp("frank");
      // "Always allow" for this app alone (the chat's policy, kept in the app's storage): the machine's echo runs unasked.
      await runInDurableObject(appStub(props.appId), (_instance, state) => {
        new Approvals({ required: true, alwaysAllow: () => [], store: new AppSettings(state.storage.sql), broadcast: () => undefined }).remember(
          echo.qualifiedName,
        );
      });
      const { client } = await mcpClient(props, "2026");
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain(echo.functionName);
        // Listed while every request to the machine waits: nothing upstream answered, and no tools/list was even sent.
        expect(machine.requests.filter((r) => r.includes("tools/list"))).toEqual([]);

        machine.release();
        const result = await client.callTool({ name: echo.functionName, arguments: { message: "from frank's machine" } });
        expect(result.isError).not.toBe(true);
        expect(JSON.stringify(result.content)).toContain("from frank's machine");
        expect(machine.requests).toContain("POST tools/call");
      } finally {
        await client.close();
        // The app's own connections to the machine end with it, before the machine goes.
        await appStub(props.appId).disconnect();
      }
    } finally {
      await machine.remove();
    }
  });
});
