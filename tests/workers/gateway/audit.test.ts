// The audit trail of calls through the /mcp gateway (issue 40; docs/audit.md): a connected
// app's tools/call leaves the same record a chat's call does, under the chat id `app:<appId>`,
// asked by `mcp_client` naming the person and which app, decided as the gate decided (asked
// through the client: once, deny; then "always"), with the arguments' and the result's own
// hashes and never their text; in /api/audit and both downloads, and in nobody else's.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CSV_COLUMNS } from "../../../src/audit/csv";
import { type AuditRecord, AuditRecordSchema, personKey, resultForDigest } from "../../../src/audit/record";
import type { Env } from "../../../src/config/env";
import type { GrantProps } from "../../../src/gateway/props";
import { userAccount } from "../../../src/users/account";
import { connectApp, directFetch, MCP_URL } from "../../fixtures/gateway-direct";
import { ownDigest } from "../../fixtures/own-digest";
import type { TestUser } from "../test-users";
import { aliceV2Server, api } from "./own-v2-server";

const server = aliceV2Server("au");

/** A 2026 client that can elicit, answering each approval question with the next of `answers`. */
async function askingClient(props: GrantProps, answers: ("once" | "always" | "deny")[]) {
  const client = new Client({ name: "audit-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } });
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { decision: answers.shift() ?? "deny" } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: directFetch(props.appId, props) }));
  return client;
}

async function page(chat: string, user: TestUser = "alice"): Promise<{ records: AuditRecord[]; titles: Record<string, string> }> {
  const response = await api(`/api/audit?session=${encodeURIComponent(chat)}`, {}, user);
  expect(response.status).toBe(200);
  return (await response.json()) as { records: AuditRecord[]; titles: Record<string, string> };
}

async function trail(chat: string, user: TestUser = "alice"): Promise<AuditRecord[]> {
  return (await page(chat, user)).records.reverse();
}

describe("calls through /mcp in the audit trail", () => {
  it("records each decided call as asked by the app, how it was decided, its hashes and status; exported; bob sees none", async () => {
    const props = await connectApp("alice", "Audit App");
    const client = await askingClient(props, ["once", "deny", "always"]);
    const marker = `gateway-marker-${crypto.randomUUID()}`;
    const calls = [{ text: `${marker} once`, z: 1 }, { text: `${marker} denied` }, { text: `${marker} always` }, { text: `${marker} remembered` }];
    const results: unknown[] = [];
    try {
      results.push(await client.callTool({ name: `${server}__echo`, arguments: calls[0] }));
      await expect(client.callTool({ name: `${server}__echo`, arguments: calls[1] })).rejects.toThrow(/denied/i);
      results.push(await client.callTool({ name: `${server}__echo`, arguments: calls[2] }));
      results.push(await client.callTool({ name: `${server}__echo`, arguments: calls[3] }));
    } finally {
      await client.close();
    }
    const chat = `app:${props.appId}`;
    await expect.poll(async () => (await trail(chat)).length, { timeout: 15_000 }).toBe(4);
    const records = await trail(chat);
    const alice = { key: personKey("token:alice"), name: "alice" };
    for (const record of records) {
      expect(record).toMatchObject({
        v: 1,
        chat,
        turnId: null,
        server,
        tool: "echo",
        askedBy: { kind: "mcp_client", person: alice, client: { id: props.appId, name: "Audit App" } },
      });
      expect(record.endedAt).toBeGreaterThanOrEqual(record.at);
    }
    expect(records.map((r) => [r.decision, r.status])).toEqual([
      [{ how: "asked", answer: "allowed", by: alice, via: "client" }, "ok"],
      [{ how: "asked", answer: "denied", by: alice, via: "client" }, "denied"],
      [{ how: "asked", answer: "allowed", by: alice, via: "client" }, "ok"],
      [{ how: "always" }, "ok"],
    ]);
    expect(records.map((r) => r.args)).toEqual(calls.map(ownDigest));
    // The result as the client holds it hashes the same (the hop's own _meta aside, as docs/audit.md says).
    expect([records[0], records[2], records[3]].map((r) => r?.result)).toEqual(results.map((r) => ownDigest(resultForDigest(r))));
    expect(records[1]?.result).toBeUndefined();
    expect(records[1]?.durationMs).toBe(0);
    expect(JSON.stringify(records)).not.toContain(marker);

    // Both downloads carry them.
    const jsonl = await api(`/api/audit/export?format=jsonl&session=${encodeURIComponent(chat)}`);
    const lines = (await jsonl.text()).trimEnd().split("\n");
    expect(lines.map((line) => AuditRecordSchema.parse(JSON.parse(line)).id)).toEqual(records.map((r) => r.id));
    const csv = (await (await api(`/api/audit/export?format=csv&session=${encodeURIComponent(chat)}`)).text()).split("\r\n").filter(Boolean);
    const column = (name: (typeof CSV_COLUMNS)[number]) => csv.slice(1).map((row) => row.split(",")[CSV_COLUMNS.indexOf(name)]);
    expect(column("asked_by_kind")).toEqual(["mcp_client", "mcp_client", "mcp_client", "mcp_client"]);
    expect(column("client")).toEqual(["Audit App", "Audit App", "Audit App", "Audit App"]);
    expect(column("via")).toEqual(["client", "client", "client", ""]);
    // The app's "chat" is named by the app, marked as one (an app names itself; it must not pass for a chat's title).
    expect(column("chat_title")).toEqual(Array(4).fill("Connected app: Audit App"));
    expect(csv.join("\n")).not.toContain(marker);

    // Another person: the app's chat id matches none of theirs, and names nothing.
    expect(await page(chat, "bob")).toMatchObject({ records: [], titles: {} });
  });

  it("names an app's calls in the Activity view by the app's name in Connected apps, or as recorded once the app is gone", async () => {
    const props = await connectApp("alice", "Named App");
    const client = await askingClient(props, ["once"]);
    try {
      await client.callTool({ name: `${server}__echo`, arguments: { text: "named" } });
    } finally {
      await client.close();
    }
    const chat = `app:${props.appId}`;
    // Not in her Connected apps list (activated directly): the name the row recorded.
    await expect.poll(async () => (await page(chat)).titles, { timeout: 15_000 }).toEqual({ [chat]: "Connected app: Named App" });
    // Listed under the name its newest consent gave: that one.
    const account = userAccount(env as unknown as Env, "token:alice");
    const connection = { appId: props.appId, clientId: props.client.id, clientName: "Named App v2", redirectHost: "127.0.0.1", scopes: [], sampling: false };
    expect(await account.connectApp(connection)).toMatchObject({ ok: true });
    try {
      expect((await page(chat)).titles).toEqual({ [chat]: "Connected app: Named App v2" });
    } finally {
      await account.removeApp(props.appId);
    }
    expect((await page(chat)).titles).toEqual({ [chat]: "Connected app: Named App" });
    expect(await page(chat, "bob")).toMatchObject({ records: [], titles: {} });
  });
});
