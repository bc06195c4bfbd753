// Approvals at /mcp (issue 38, design §2.5 3a/3c/3e): a tool that would ask in the chat
// (TOOL_APPROVAL is on here, the server has no alwaysAllow) is asked of the person through
// the client itself — a 2026 client answers the input_required by retrying, a 2025 session
// gets a real elicitation/create from the SDK's shim — once / always for this app / deny.
// A client that cannot ask is refused with approval_required. The tool with a visible effect
// is the v2 fixture's `touch` (writes note://board, read back through the gateway).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { GrantProps } from "../../../src/gateway/props";
import { authorize, GatewayOAuthClient } from "../../fixtures/gateway-client";
import { appStub, connectApp, directFetch, MCP_URL, mcpClient } from "../../fixtures/gateway-direct";
import { authHeaders } from "../test-users";
import { aliceV2Server, api } from "./own-v2-server";

const server = aliceV2Server("ap");
const touch = `${server}__touch`;
const echo = `${server}__echo`;

type Decision = "once" | "always" | "deny";

/** A client that can elicit: every question it gets is written down and answered with `decide()`. */
async function askingClient(props: GrantProps | { accessToken: string }, era: "2026" | "2025", decide: () => Decision) {
  const asked: string[] = [];
  const client = new Client(
    { name: "approvals-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, ...(era === "2026" ? { versionNegotiation: { mode: "auto" as const } } : {}) },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { decision: decide() } };
  });
  const transport =
    "accessToken" in props
      ? new StreamableHTTPClientTransport(new URL(MCP_URL), {
          fetch: (url, init) => SELF.fetch(String(url), init),
          requestInit: { headers: { authorization: `Bearer ${props.accessToken}` } },
        })
      : new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: directFetch(props.appId, props) });
  await client.connect(transport);
  return { client, asked };
}

const text = (result: { content?: unknown }) => JSON.stringify(result.content);

async function board(client: Client): Promise<string> {
  const read = await client.readResource({ uri: "note://board" });
  const first = read.contents[0];
  return first && "text" in first ? first.text : "";
}

describe("a 2026 client that can elicit", () => {
  it("once: the tool runs, the next call asks again", async () => {
    const { client, asked } = await askingClient(await connectApp("alice", "Claude Test"), "2026", () => "once");
    try {
      const mark = `once-${crypto.randomUUID()}`;
      const result = await client.callTool({ name: touch, arguments: { text: mark } });
      expect(result.isError).toBeFalsy();
      expect(text(result)).toContain("written");
      expect(await board(client)).toBe(mark);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain("Claude Test wants to run");
      expect(asked[0]).toContain(`${server}.touch`);

      // The same tool again: "once" was for that call only.
      const second = `once-again-${crypto.randomUUID()}`;
      const again = await client.callTool({ name: touch, arguments: { text: second } });
      expect(text(again)).toContain("written");
      expect(asked).toHaveLength(2);
      expect(await board(client)).toBe(second);
    } finally {
      await client.close();
    }
  });

  it("always: runs, and the next call of that tool does not ask", async () => {
    const { client, asked } = await askingClient(await connectApp("alice"), "2026", () => "always");
    try {
      expect(text(await client.callTool({ name: echo, arguments: { text: "first" } }))).toContain("first");
      expect(asked).toHaveLength(1);
      expect(text(await client.callTool({ name: echo, arguments: { text: "other args" } }))).toContain("other args");
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("deny: a denied error and the tool did not run", async () => {
    const { client, asked } = await askingClient(await connectApp("alice"), "2026", () => "deny");
    try {
      const mark = `denied-${crypto.randomUUID()}`;
      await expect(client.callTool({ name: touch, arguments: { text: mark } })).rejects.toThrow(/denied/i);
      expect(asked).toHaveLength(1);
      expect(await board(client)).not.toBe(mark);
    } finally {
      await client.close();
    }
  });

  it("always is forgotten when the app is disconnected", async () => {
    const props = await connectApp("alice");
    const { client, asked } = await askingClient(props, "2026", () => "always");
    try {
      await client.callTool({ name: echo, arguments: { text: "kept" } });
      expect(asked).toHaveLength(1);
      expect(await appStub(props.appId).alwaysAllowed()).toEqual([`${server}.echo`]);
    } finally {
      await client.close();
    }
    await appStub(props.appId).disconnect();
    expect(await appStub(props.appId).alwaysAllowed()).toEqual([]);
  });

  it("always in one app: another app of the same person still asks", async () => {
    const first = await askingClient(await connectApp("alice", "First"), "2026", () => "always");
    const second = await askingClient(await connectApp("alice", "Second"), "2026", () => "once");
    try {
      await first.client.callTool({ name: echo, arguments: { text: "a" } });
      await first.client.callTool({ name: echo, arguments: { text: "b" } });
      expect(first.asked).toHaveLength(1);
      expect(text(await second.client.callTool({ name: echo, arguments: { text: "c" } }))).toContain("c");
      expect(second.asked).toHaveLength(1);
      expect(second.asked[0]).toContain("Second wants to run");
    } finally {
      await Promise.all([first.client.close(), second.client.close()]);
    }
  });
});

describe("a 2025 client that can elicit", () => {
  it("gets a real elicitation/create; once runs the tool", async () => {
    const { client, asked } = await askingClient(await connectApp("alice", "Old Client"), "2025", () => "once");
    try {
      const mark = `legacy-${crypto.randomUUID()}`;
      const result = await client.callTool({ name: touch, arguments: { text: mark } });
      expect(text(result)).toContain("written");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain("Old Client wants to run");
      expect(await board(client)).toBe(mark);
    } finally {
      await client.close();
    }
  });
});

describe("a client that cannot elicit", () => {
  it.each(["2026", "2025"] as const)("%s: approval_required, the tool not run", async (era) => {
    const { client } = await mcpClient(await connectApp("alice"), era);
    try {
      const mark = `unasked-${crypto.randomUUID()}`;
      const error = await client.callTool({ name: touch, arguments: { text: mark } }).then(
        () => undefined,
        (e: unknown) => e as { code?: number; message: string; data?: { code?: string } },
      );
      expect(error?.data?.code).toBe("approval_required");
      expect(error?.message).toContain("cannot ask you");
      expect(await board(client)).not.toBe(mark);
    } finally {
      await client.close();
    }
  });
});

describe("the requestState a retry carries", () => {
  /** A 2026 client in manual mode: it sees the input_required and retries by hand. */
  async function manualClient() {
    const props = await connectApp("alice");
    const client = new Client(
      { name: "manual", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" }, inputRequired: { autoFulfill: false } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: directFetch(props.appId, props) }));
    return client;
  }

  const call = (client: Client, params: Record<string, unknown>) =>
    client.request({ method: "tools/call", params: params as { name: string } }, { allowInputRequired: true }) as Promise<Record<string, unknown>>;
  const accept = { approve: { action: "accept", content: { decision: "once" } } };

  it("for other arguments, or tampered with: asked again, not run", async () => {
    const client = await manualClient();
    try {
      const first = await call(client, { name: touch, arguments: { text: "asked-about" } });
      expect(first.resultType).toBe("input_required");
      const state = first.requestState as string;
      expect(typeof state).toBe("string");

      const other = `other-${crypto.randomUUID()}`;
      const swapped = await call(client, { name: touch, arguments: { text: other }, inputResponses: accept, requestState: state });
      expect(swapped.resultType).toBe("input_required");

      const [head, body, mac] = state.split(".");
      const forged = `${head}.${body}.${mac?.startsWith("A") ? `B${mac.slice(1)}` : `A${mac?.slice(1)}`}`;
      const tampered = await call(client, { name: touch, arguments: { text: other }, inputResponses: accept, requestState: forged });
      expect(tampered.resultType).toBe("input_required");
      expect(await board(client)).not.toBe(other);

      // The state for these very arguments is taken.
      const right = await call(client, { name: touch, arguments: { text: "asked-about" }, inputResponses: accept, requestState: state });
      expect(JSON.stringify(right.content)).toContain("written");
    } finally {
      await client.close();
    }
  });
});

describe("Connected apps lists an app's always-allowed tools", () => {
  it("GET /api/apps/:id shows them; DELETE /api/apps/:id/always/:tool revokes one, and the tool asks again", async () => {
    const provider = new GatewayOAuthClient({ fetch: (url, init) => SELF.fetch(url, init), headers: authHeaders("alice"), clientName: "Listed App" });
    const tokens = await authorize(provider, MCP_URL);
    const listed = (await (await api("/api/apps")).json()) as { apps: { id: string; clientName: string }[] };
    const appId = listed.apps.find((a) => a.clientName === "Listed App")?.id;
    expect(appId).toBeDefined();
    const { client, asked } = await askingClient({ accessToken: tokens.access_token }, "2026", () => "always");
    try {
      await client.callTool({ name: echo, arguments: { text: "remember me" } });
      expect(asked).toHaveLength(1);
      const shown = (await (await api(`/api/apps/${appId}`)).json()) as { app: { alwaysAllowed: string[] } };
      expect(shown.app.alwaysAllowed).toEqual([`${server}.echo`]);

      const revoked = await api(`/api/apps/${appId}/always/${server}.echo`, { method: "DELETE" });
      expect(revoked.status).toBe(200);
      expect(((await revoked.json()) as { alwaysAllowed: string[] }).alwaysAllowed).toEqual([]);
      expect((await api(`/api/apps/${appId}/always/${server}.echo`, { method: "DELETE" })).status).toBe(404);
      expect((await api(`/api/apps/${appId}/always/no-dot`, { method: "DELETE" })).status).toBe(400);

      await client.callTool({ name: echo, arguments: { text: "ask again" } });
      expect(asked).toHaveLength(2);
      // Bob cannot read or revoke alice's app's tools.
      const asBob = await SELF.fetch(`https://edgehost.test/api/apps/${appId}/always/${server}.echo`, { method: "DELETE", headers: authHeaders("bob") });
      expect(asBob.status).toBe(404);
    } finally {
      await client.close();
    }
  });
});
