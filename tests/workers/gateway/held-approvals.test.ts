// Approvals held while the person's page shows them (issue 38, design §2.5 b/d/e, §2.7): a
// client that cannot elicit calls a tool that would ask in the chat (TOOL_APPROVAL on, no
// alwaysAllow); the call waits (GATEWAY_HOLD_MS, 3 s here) while alice's page — played by the
// test with her identity through SELF — lists the question (GET /api/apps/questions) and
// answers it (POST /api/apps/:id/answers). The call says it waits with a progress notification,
// which is when the test answers. Not answered in time: approval_pending, and a later approval
// lets that very call run once. The tool with a visible effect is the v2 fixture's `touch`
// (writes note://board, read back through the gateway).
import type { Client } from "@modelcontextprotocol/client";
import { env, SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AuditRecord, personKey } from "../../../src/audit/record";
import type { Env } from "../../../src/config/env";
import { appIdFor, type GrantProps } from "../../../src/gateway/props";
import { userAccount } from "../../../src/users/account";
import { authorize, GatewayOAuthClient } from "../../fixtures/gateway-client";
import { appStub, identityOf, MCP_URL, mcpClient, type TestPerson } from "../../fixtures/gateway-direct";
import { authHeaders } from "../test-users";

const v2 = inject("v2BothUrl");
const json = { "content-type": "application/json" };
const server = `held${crypto.randomUUID().slice(0, 6)}`;
const touch = `${server}__touch`;
const ORIGIN = "https://edgehost.test";
const as = (person: TestPerson, path: string, init: RequestInit = {}) =>
  SELF.fetch(`${ORIGIN}${path}`, { ...init, headers: authHeaders(person, init.headers) });

type Question = { id: string; appId: string; appName: string; server: string; tool: string; arguments: Record<string, unknown>; expiresAt: number };

beforeAll(async () => {
  const added = await as("alice", "/api/my-servers", { method: "POST", headers: json, body: JSON.stringify({ name: server, url: v2 }) });
  expect(added.status).toBe(201);
});

afterAll(async () => {
  await as("alice", `/api/my-servers/${server}`, { method: "DELETE" });
});

/** An app of `person` listed in their account (as consent lists it) and its object activated, without the OAuth dance. */
async function listedApp(person: TestPerson, clientName: string): Promise<GrantProps> {
  const identity = identityOf(person);
  const clientId = `client-${crypto.randomUUID()}`;
  const appId = await appIdFor(identity.id, clientId, "http://127.0.0.1/callback");
  const account = userAccount(env as unknown as Env, identity.id);
  const connected = await account.connectApp({ appId, clientId, clientName, redirectHost: "127.0.0.1", scopes: ["mcp"], sampling: false });
  if (!connected.ok) throw new Error("the account refused the app");
  await appStub(appId).activate({
    owner: identity,
    gen: connected.gen,
    client: { id: clientId, name: clientName, redirectHost: "127.0.0.1" },
    samplingAllowed: false,
  });
  return { v: 1, identity, appId, gen: connected.gen, client: { id: clientId, name: clientName } };
}

async function questions(person: TestPerson): Promise<Question[]> {
  const response = await as(person, "/api/apps/questions");
  expect(response.status).toBe(200);
  return ((await response.json()) as { questions: Question[] }).questions;
}

const answer = (person: TestPerson, appId: string, id: string, approved: boolean) =>
  as(person, `/api/apps/${appId}/answers`, { method: "POST", headers: json, body: JSON.stringify({ id, approved }) });

/** A call that will be held: resolves `waiting` on its first progress notification (the hold began, the question is in the account). */
function heldCall(client: Client, args: Record<string, unknown>) {
  let began!: () => void;
  const waiting = new Promise<void>((resolve) => (began = resolve));
  const call = client.callTool({ name: touch, arguments: args }, { onprogress: () => began() });
  // Settled either way here: a rejection is read by the test through `outcome`.
  const outcome = call.then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error: error as { code?: number; message: string; data?: Record<string, unknown> } }),
  );
  return { waiting, outcome };
}

const text = (result: { content?: unknown } | undefined) => JSON.stringify(result?.content);

async function board(client: Client): Promise<string> {
  const read = await client.readResource({ uri: "note://board" });
  const first = read.contents[0];
  return first && "text" in first ? first.text : "";
}

/** The one open question of `appId` for these arguments. */
async function questionFor(appId: string, args: Record<string, unknown>): Promise<Question> {
  const mine = (await questions("alice")).filter((q) => q.appId === appId && JSON.stringify(q.arguments) === JSON.stringify(args));
  expect(mine).toHaveLength(1);
  return mine[0] as Question;
}

describe("a client that cannot elicit: the call is held while alice's page shows it", () => {
  it("allowed in the page: the held call runs and returns the tool's result; a second answer is refused", async () => {
    const props = await listedApp("alice", "Held Client");
    const { client } = await mcpClient(props, "2026");
    try {
      const mark = `held-${crypto.randomUUID()}`;
      const call = heldCall(client, { text: mark });
      await call.waiting;
      const question = await questionFor(props.appId, { text: mark });
      expect(question).toMatchObject({ appName: "Held Client", server, tool: "touch" });
      const allowed = await answer("alice", props.appId, question.id, true);
      expect(allowed.status).toBe(200);
      expect(await allowed.json()).toEqual({ id: question.id, approved: true, result: "held_call" });
      const { result, error } = await call.outcome;
      expect(error).toBeUndefined();
      expect(text(result)).toContain("written");
      expect(await board(client)).toBe(mark);

      const again = await answer("alice", props.appId, question.id, true);
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe("question_answered");
      expect((await questions("alice")).map((q) => q.id)).not.toContain(question.id);
    } finally {
      await client.close();
    }
  });

  it("denied in the page: the client gets denied and the tool did not run", async () => {
    const props = await listedApp("alice", "Held Client");
    const { client } = await mcpClient(props, "2025");
    try {
      const mark = `held-denied-${crypto.randomUUID()}`;
      const call = heldCall(client, { text: mark });
      await call.waiting;
      const question = await questionFor(props.appId, { text: mark });
      expect((await answer("alice", props.appId, question.id, false)).status).toBe(200);
      const { error } = await call.outcome;
      expect(error?.data?.code).toBe("denied");
      expect(await board(client)).not.toBe(mark);
    } finally {
      await client.close();
    }
  });

  it("not answered in time: approval_pending; approved later, the same call runs once, then asks again; other arguments ask", async () => {
    const props = await listedApp("alice", "Late Client");
    const { client } = await mcpClient(props, "2026");
    try {
      const mark = `late-${crypto.randomUUID()}`;
      const first = heldCall(client, { text: mark });
      const { error } = await first.outcome;
      expect(error?.code).toBe(-31101);
      expect(error?.message).toContain(`${ORIGIN}/#apps`);
      const data = error?.data as { code: string; approveUrl: string; questionId: string; expiresAt: string };
      expect(data).toMatchObject({ code: "approval_pending", approveUrl: `${ORIGIN}/#apps`, tool: `${server}.touch` });
      const expiresIn = Date.parse(data.expiresAt) - Date.now();
      expect(expiresIn).toBeGreaterThan(8 * 60_000);
      expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);
      expect(await board(client)).not.toBe(mark);

      // The question stays open in the page; a retry before the person answers waits on that same question.
      const retry = heldCall(client, { text: mark });
      await retry.waiting;
      const question = await questionFor(props.appId, { text: mark });
      expect(question.id).toBe(data.questionId);
      expect((await retry.outcome).error?.data?.code).toBe("approval_pending");

      // Approved after the hold: a one-shot for exactly this call.
      const late = await answer("alice", props.appId, data.questionId, true);
      expect(await late.json()).toEqual({ id: data.questionId, approved: true, result: "one_shot" });
      const ran = await client.callTool({ name: touch, arguments: { text: mark } });
      expect(text(ran)).toContain("written");
      expect(await board(client)).toBe(mark);

      // Used up: the same call is held again (a new question), as is one with other arguments.
      for (const args of [{ text: mark }, { text: `${mark}-other` }]) {
        const asked = heldCall(client, args);
        await asked.waiting;
        const again = await questionFor(props.appId, args);
        expect(again.id).not.toBe(data.questionId);
        expect((await answer("alice", props.appId, again.id, false)).status).toBe(200);
        expect((await asked.outcome).error?.data?.code).toBe("denied");
      }
      expect(await board(client)).toBe(mark);

      // The audit trail (docs/audit.md): the two calls left pending reached no decision and have no row; the one-shot
      // and the two denials were answered by alice in her page.
      const trail = async () => ((await (await as("alice", `/api/audit?session=app:${props.appId}`)).json()) as { records: AuditRecord[] }).records.reverse();
      await expect.poll(async () => (await trail()).length, { timeout: 15_000 }).toBe(3);
      const alice = { key: personKey("token:alice"), name: "alice" };
      expect((await trail()).map((r) => [r.decision, r.status])).toEqual([
        [{ how: "asked", answer: "allowed", by: alice, via: "page" }, "ok"],
        [{ how: "asked", answer: "denied", by: alice, via: "page" }, "denied"],
        [{ how: "asked", answer: "denied", by: alice, via: "page" }, "denied"],
      ]);
    } finally {
      await client.close();
    }
  });
});

describe("what is kept", () => {
  it("a question too big to show is not held (approval_required); a disconnected app's questions go with it", async () => {
    const props = await listedApp("alice", "Big Client");
    const { client } = await mcpClient(props, "2026");
    try {
      const big = "x".repeat(70 * 1024);
      const refused = await client.callTool({ name: touch, arguments: { text: big } }).then(
        () => undefined,
        (e: unknown) => e as { data?: { code?: string } },
      );
      expect(refused?.data?.code).toBe("approval_required");
      expect(await board(client)).not.toBe(big);
    } finally {
      await client.close();
    }
    const id = crypto.randomUUID();
    const question = { server, tool: "touch", arguments: { text: "kept?" } };
    await userAccount(env as unknown as Env, "token:alice").gatewayQuestionAsk({
      appId: props.appId,
      id,
      question,
      argsHash: "x",
      expiresAt: Date.now() + 60_000,
    });
    expect((await questions("alice")).map((q) => q.id)).toContain(id);
    expect((await as("alice", `/api/apps/${props.appId}`, { method: "DELETE" })).status).toBe(200);
    expect((await questions("alice")).map((q) => q.id)).not.toContain(id);
  });
});

describe("who can answer", () => {
  it("bob neither sees nor answers alice's question, by her app or by his own", async () => {
    const props = await listedApp("alice", "Alice's Client");
    const id = crypto.randomUUID();
    await userAccount(env as unknown as Env, "token:alice").gatewayQuestionAsk({
      appId: props.appId,
      id,
      question: { server, tool: "touch", arguments: { text: "alice's" } },
      argsHash: "x",
      expiresAt: Date.now() + 60_000,
    });
    expect((await questions("alice")).map((q) => q.id)).toContain(id);
    expect((await questions("bob")).map((q) => q.id)).not.toContain(id);
    const viaHerApp = await answer("bob", props.appId, id, true);
    expect(viaHerApp.status).toBe(404);
    expect(((await viaHerApp.json()) as { error: { code: string } }).error.code).toBe("app_not_found");
    const bobs = await listedApp("bob", "Bob's Client");
    const viaHisApp = await answer("bob", bobs.appId, id, true);
    expect(viaHisApp.status).toBe(404);
    expect(((await viaHisApp.json()) as { error: { code: string } }).error.code).toBe("unknown_approval");
    // Still hers to answer, once.
    expect((await answer("alice", props.appId, id, true)).status).toBe(200);
    expect((await answer("alice", props.appId, id, false)).status).toBe(409);
  });

  it("an expired question is gone (410); a malformed answer is a 400 naming the fields", async () => {
    const props = await listedApp("alice", "Expired Client");
    const id = crypto.randomUUID();
    const account = userAccount(env as unknown as Env, "token:alice");
    const held = await account.gatewayQuestionAsk({
      appId: props.appId,
      id,
      question: { server, tool: "touch", arguments: {} },
      argsHash: "x",
      expiresAt: Date.now() - 1,
    });
    expect(held).toBe(true);
    expect((await questions("alice")).map((q) => q.id)).not.toContain(id);
    const expired = await answer("alice", props.appId, id, true);
    expect(expired.status).toBe(410);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe("question_expired");

    const bad = await as("alice", `/api/apps/${props.appId}/answers`, { method: "POST", headers: json, body: JSON.stringify({ id: "nope", approved: "yes" }) });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("approved");
  });

  it("the app's own OAuth token is no identity for the answer route, and another site's page is refused", async () => {
    const provider = new GatewayOAuthClient({ fetch: (url, init) => SELF.fetch(url, init), headers: authHeaders("alice"), clientName: "Self Answering" });
    const tokens = await authorize(provider, MCP_URL);
    const listed = (await (await as("alice", "/api/apps")).json()) as { apps: { id: string; clientName: string }[] };
    const appId = listed.apps.find((a) => a.clientName === "Self Answering")?.id;
    expect(appId).toBeDefined();
    const id = crypto.randomUUID();
    await userAccount(env as unknown as Env, "token:alice").gatewayQuestionAsk({
      appId: appId as string,
      id,
      question: { server, tool: "touch", arguments: {} },
      argsHash: "x",
      expiresAt: Date.now() + 60_000,
    });
    const body = JSON.stringify({ id, approved: true });
    const byToken = await SELF.fetch(`${ORIGIN}/api/apps/${appId}/answers`, {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${tokens.access_token}` },
      body,
    });
    expect(byToken.status).toBe(401);
    const crossSite = await as("alice", `/api/apps/${appId}/answers`, { method: "POST", headers: { ...json, origin: "https://evil.test" }, body });
    expect(crossSite.status).toBe(403);
    // Still open: neither counted as an answer.
    expect((await questions("alice")).map((q) => q.id)).toContain(id);
  });
});
