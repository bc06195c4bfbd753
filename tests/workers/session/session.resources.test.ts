// Resources and prompts of the session's servers, through the real Worker, the real
// ChatSession, the real bridge with server-everything over stdio, and the fake
// Gemini recording what it is sent: the catalog routes, completion, a text and a
// blob resource attached to a message, a prompt with arguments starting a turn,
// refusals with typed errors (the session goes on), and a subscription update
// reaching the page and the next turn.
import { abortAllDurableObjects } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import type { Message, SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const DOC = "demo://resource/static/document/features.md";
const BLOB = "demo://resource/dynamic/blob/7";
const TEXT = "demo://resource/dynamic/text/3";

type Contents = { role: string; parts: Record<string, unknown>[] }[];
const lastContents = async (): Promise<Contents> => ((await requests(llm, KEY)).at(-1)?.body.contents ?? []) as Contents;

async function json<T>(path: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const response = await workerFetch(path, init);
  return { status: response.status, body: (await response.json()) as T };
}

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** Sends a frame and waits for the error (or the turn_end) it causes. */
async function errorFor(socket: SessionClient, frame: unknown): Promise<Message<"error">> {
  const from = socket.received.length;
  socket.send(frame);
  return socket.next((m): m is Message<"error"> => m.type === "error", from);
}

describe("the catalog routes", () => {
  it("lists the enabled servers' resources, templates and prompts, and completes arguments", async () => {
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const resources = await json<{ resources: { server: string; uri: string; name: string; mimeType?: string }[] }>(`/sessions/${id}/resources`);
    expect(resources.status).toBe(200);
    expect(resources.body.resources).toContainEqual({
      server: "everything",
      uri: DOC,
      name: "features.md",
      description: "Static document file exposed from /docs: features.md",
      mimeType: "text/markdown",
    });

    const templates = await json<{ resourceTemplates: unknown[] }>(`/sessions/${id}/resource-templates`);
    expect(templates.body.resourceTemplates).toContainEqual({
      server: "everything",
      uriTemplate: "demo://resource/dynamic/text/{resourceId}",
      name: "Dynamic Text Resource",
      description: "Plaintext dynamic resource fabricated from the {resourceId} variable, which must be an integer.",
      mimeType: "text/plain",
      variables: ["resourceId"],
      completions: true,
    });

    const prompts = await json<{ prompts: { name: string }[] }>(`/sessions/${id}/prompts`);
    expect(prompts.body.prompts).toContainEqual({
      server: "everything",
      name: "args-prompt",
      title: "Arguments Prompt",
      description: "A prompt with two arguments, one required and one optional",
      arguments: [
        { name: "city", description: "Name of the city", required: true },
        { name: "state", required: false },
      ],
      completions: true,
    });

    // Completion: a prompt argument, one that depends on another, and a template variable.
    const department = await json(
      `/sessions/${id}/complete`,
      post({ server: "everything", ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "S" } }),
    );
    expect(department).toEqual({ status: 200, body: { completion: { values: ["Sales", "Support"], total: 2, hasMore: false } } });
    const person = await json(
      `/sessions/${id}/complete`,
      post({
        server: "everything",
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "name", value: "" },
        context: { department: "Engineering" },
      }),
    );
    expect(person.body).toMatchObject({ completion: { values: ["Alice", "Bob", "Charlie"] } });
    const variable = await json(
      `/sessions/${id}/complete`,
      post({
        server: "everything",
        ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
        argument: { name: "resourceId", value: "42" },
      }),
    );
    expect(variable.body).toMatchObject({ completion: { values: ["42"] } });

    // Refusals name what was wrong.
    const unknown = await json(
      `/sessions/${id}/complete`,
      post({ server: "nope", ref: { type: "ref/prompt", name: "x" }, argument: { name: "a", value: "" } }),
    );
    expect(unknown).toEqual({ status: 404, body: { error: { code: "unknown_server", message: 'no MCP server is named "nope"' } } });
    const noCompletions = await json(
      `/sessions/${id}/complete`,
      post({ server: "filesystem", ref: { type: "ref/prompt", name: "x" }, argument: { name: "a", value: "" } }),
    );
    expect(noCompletions).toEqual({
      status: 400,
      body: { error: { code: "completions_unsupported", message: 'MCP server "filesystem" does not offer completions' } },
    });
    const bad = await json<{ error: { code: string; message: string } }>(
      `/sessions/${id}/complete`,
      post({ server: "everything", ref: { type: "ref/tool", name: "x" }, argument: { name: "a", value: "" } }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("bad_request");
    expect(bad.body.error.message).toMatch(/^ref\.type: /);

    // Turning a server off for the session hides what it offers.
    socket.send({ type: "set_servers", enabled: ["filesystem"] });
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && !s.enabled));
    expect((await json<{ resources: unknown[] }>(`/sessions/${id}/resources`)).body.resources).toEqual([]);
    const disabled = await json(
      `/sessions/${id}/complete`,
      post({ server: "everything", ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "" } }),
    );
    expect(disabled).toEqual({ status: 409, body: { error: { code: "server_disabled", message: 'MCP server "everything" is turned off for this session' } } });
    socket.close();
  });

  it("answers 404 for a session that is not the caller's", async () => {
    const id = crypto.randomUUID();
    (await openSession(id)).close();
    const response = await workerFetch(`/sessions/${id}/prompts`, {}, "bob");
    expect(response.status).toBe(404);
  });
});

describe("attaching resources", () => {
  it("sends a text resource and a text/plain blob with the user's message as parts of its content, and keeps them in history", async () => {
    await script(llm, KEY, [reply.text("Read both."), reply.text("Still there.")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const from = socket.received.length;
    socket.send({
      type: "message",
      text: "what do these say?",
      attachments: [
        { server: "everything", uri: DOC },
        { server: "everything", uri: BLOB },
      ],
    });
    const { end } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");

    const contents = await lastContents();
    const user = contents.at(-1);
    expect(user?.role).toBe("user");
    const parts = user?.parts ?? [];
    expect(parts).toHaveLength(3);
    expect(parts[0]).toEqual({ text: "what do these say?" });
    expect(String(parts[1]?.text)).toMatch(
      /^Attached resource "features\.md" \(demo:\/\/resource\/static\/document\/features\.md, from MCP server "everything"\):\n# Everything Server/,
    );
    // The blob is text/plain base64: decoded for the model.
    expect(String(parts[2]?.text)).toMatch(
      /^Attached resource "Dynamic Blob Resource 7" \(demo:\/\/resource\/dynamic\/blob\/7, from MCP server "everything"\):\nResource 7: This is a base64 blob created at \S+/,
    );

    // The user entry lists what was attached; the replay after a reload has it too.
    const entry = socket.entries(from).find((e) => e.kind === "user");
    expect(entry?.attachments).toEqual([
      { server: "everything", uri: DOC, name: "features.md", mimeType: "text/markdown" },
      { server: "everything", uri: BLOB, name: "Dynamic Blob Resource 7", mimeType: "text/plain" },
    ]);
    socket.close();
    const again = await openSession(id);
    expect(again.history().find((e) => e.kind === "user")?.attachments).toEqual(entry?.attachments);

    // A later turn still gives the model the contents read at send time.
    const next = again.say("and now?");
    await again.turnEnd(next);
    const replay = await lastContents();
    expect(replay[0]?.parts).toEqual(parts);
    again.close();
  });

  it("refuses an unknown server, a disabled one, a missing resource and too many attachments with typed errors; the session goes on", async () => {
    await script(llm, KEY, [reply.text("fine")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && s.state === "ready"));
    const message = (attachments: unknown[]) => ({ type: "message", text: "look", attachments });
    expect(await errorFor(socket, message([{ server: "nope", uri: DOC }]))).toEqual({
      type: "error",
      code: "unknown_server",
      message: 'no MCP server is named "nope"',
    });
    const missing = await errorFor(socket, message([{ server: "everything", uri: "demo://resource/static/document/absent.md" }]));
    expect(missing.code).toBe("resource_not_found");
    expect(missing.message).toMatch(/^MCP server "everything" could not read "demo:\/\/resource\/static\/document\/absent\.md": /);
    const many = Array.from({ length: 9 }, (_, i) => ({ server: "everything", uri: `demo://resource/dynamic/text/${i + 1}` }));
    expect(await errorFor(socket, message(many))).toEqual({
      type: "error",
      code: "too_many_attachments",
      message: "a message may carry at most 8 resources (got 9)",
    });
    expect(await errorFor(socket, message([{ server: "everything" }]))).toEqual({
      type: "error",
      code: "bad_message",
      message: "message: attachments.0.uri: Invalid input: expected string, received undefined",
    });
    socket.send({ type: "set_servers", enabled: ["filesystem"] });
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && !s.enabled));
    expect(await errorFor(socket, message([{ server: "everything", uri: DOC }]))).toEqual({
      type: "error",
      code: "server_disabled",
      message: 'MCP server "everything" is turned off for this session',
    });

    // Nothing was recorded for the refused messages, and the next one runs.
    const from = socket.say("plain message");
    const { end } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(
      (await json<{ entries: { kind: string; text?: string }[] }>(`/sessions/${id}/history`)).body.entries.filter((e) => e.kind === "user").map((e) => e.text),
    ).toEqual(["plain message"]);
    socket.close();
  });
});

describe("prompts", () => {
  it("starts a turn with a prompt's messages (arguments filled in), and history shows which prompt it was", async () => {
    await script(llm, KEY, [reply.text("It is sunny.")]);
    const socket = await openSession(crypto.randomUUID());
    const from = socket.received.length;
    socket.send({ type: "prompt", server: "everything", name: "args-prompt", arguments: { city: "Lyon", state: "" } });
    const { end } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(await lastContents()).toEqual([{ role: "user", parts: [{ text: "What's weather in Lyon?" }] }]);
    expect(socket.entries(from).find((e) => e.kind === "user")).toMatchObject({
      kind: "user",
      text: "What's weather in Lyon?",
      prompt: { server: "everything", name: "args-prompt", arguments: { city: "Lyon" } },
    });
    socket.close();
  });

  it("maps an embedded resource of a prompt's message like an attachment", async () => {
    await script(llm, KEY, [reply.text("Analysed.")]);
    const socket = await openSession(crypto.randomUUID());
    const from = socket.received.length;
    socket.send({ type: "prompt", server: "everything", name: "resource-prompt", arguments: { resourceType: "Text", resourceId: "3" } });
    await socket.turnEnd(from);
    const [user] = await lastContents();
    expect(user?.parts).toEqual([
      { text: "This prompt includes the Text resource with id: 3. Please analyze the following resource:" },
      {
        text: expect.stringMatching(
          /^Attached resource \(demo:\/\/resource\/dynamic\/text\/3, from MCP server "everything"\):\nResource 3: This is a plaintext resource created at \S+/,
        ),
      },
    ]);
    expect(socket.entries(from).find((e) => e.kind === "user")?.attachments).toEqual([{ server: "everything", uri: TEXT, mimeType: "text/plain" }]);
    socket.close();
  });

  it("adds resources attached with a prompt to its first user message", async () => {
    await script(llm, KEY, [reply.text("Seen.")]);
    const socket = await openSession(crypto.randomUUID());
    const from = socket.received.length;
    socket.send({ type: "prompt", server: "everything", name: "simple-prompt", attachments: [{ server: "everything", uri: DOC }] });
    await socket.turnEnd(from);
    const [user] = await lastContents();
    expect(user?.parts[0]).toEqual({ text: "This is a simple prompt without arguments." });
    expect(String(user?.parts[1]?.text)).toMatch(
      /^Attached resource "features\.md" \(demo:\/\/resource\/static\/document\/features\.md, from MCP server "everything"\):\n# Everything Server/,
    );
    expect(socket.entries(from).find((e) => e.kind === "user")).toMatchObject({
      prompt: { server: "everything", name: "simple-prompt", arguments: {} },
      attachments: [{ server: "everything", uri: DOC, name: "features.md", mimeType: "text/markdown" }],
    });
    socket.close();
  });

  it("refuses an unknown prompt, a missing required argument and an unknown one; the session goes on", async () => {
    await script(llm, KEY, [reply.text("ok")]);
    const socket = await openSession(crypto.randomUUID());
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && s.state === "ready"));
    expect(await errorFor(socket, { type: "prompt", server: "everything", name: "nope" })).toEqual({
      type: "error",
      code: "prompt_not_found",
      message: 'MCP server "everything" has no prompt "nope"',
    });
    expect(await errorFor(socket, { type: "prompt", server: "everything", name: "args-prompt", arguments: { state: "Texas" } })).toEqual({
      type: "error",
      code: "argument_missing",
      message: 'prompt "args-prompt" needs "city"',
    });
    expect(await errorFor(socket, { type: "prompt", server: "everything", name: "args-prompt", arguments: { city: "Paris", country: "FR" } })).toEqual({
      type: "error",
      code: "argument_unknown",
      message: 'prompt "args-prompt" has no argument "country"',
    });
    expect(await errorFor(socket, { type: "prompt", server: "ghost", name: "x" })).toEqual({
      type: "error",
      code: "unknown_server",
      message: 'no MCP server is named "ghost"',
    });
    const from = socket.received.length;
    socket.send({ type: "prompt", server: "everything", name: "simple-prompt" });
    expect((await socket.turnEnd(from)).end.reason).toBe("complete");
    socket.close();
  });
});

describe("subscriptions", () => {
  it("re-reads an attached resource when the server says it changed, tells the page, and the next turn uses the new contents", async () => {
    await script(llm, KEY, [reply.text("first"), reply.text("second")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const from = socket.received.length;
    socket.send({ type: "message", text: "watch this", attachments: [{ server: "everything", uri: TEXT }] });
    await socket.turnEnd(from);
    const firstText = String((await lastContents()).at(-1)?.parts[1]?.text);
    expect(firstText).toMatch(/^Attached resource .*\nResource 3: This is a plaintext resource created at /);

    // server-everything sends resources/updated for subscribed uris once when the updates are
    // turned on, then every 5 s. The bridge offers no standalone stream by default, so a later
    // notification reaches the session on the response stream of a call in flight: a long
    // operation carries the next one.
    const tool = (name: string, args: Record<string, unknown>) =>
      workerFetch(`/api/tools/everything.${name}`, post({ arguments: args, approved: true, sessionId: id }));
    const updated = (m: { type: string }) => m.type === "resource_updated";
    const mark = socket.received.length;
    expect((await tool("toggle-subscriber-updates", {})).status).toBe(200);
    try {
      const first = await socket.next(updated, mark);
      expect(first).toEqual({ type: "resource_updated", server: "everything", uri: TEXT });
      const carrier = tool("trigger-long-running-operation", { duration: 8, steps: 2 });
      // 5 s after the first: the resource's timestamp has moved on.
      await socket.next(updated, socket.received.indexOf(first) + 1, 15_000);
      expect((await carrier).status).toBe(200);
      const next = socket.say("again");
      await socket.turnEnd(next);
      const contents = await lastContents();
      // The first user content (the attached one) now carries the re-read text.
      const reread = String(contents[0]?.parts[1]?.text);
      expect(reread).toMatch(/^Attached resource .*\nResource 3: This is a plaintext resource created at /);
      expect(reread).not.toBe(firstText);
    } finally {
      await tool("toggle-subscriber-updates", {});
    }
    socket.close();
  });

  it("subscribes again after the session's object was evicted (its new MCP session knows nothing of the old one)", async () => {
    await script(llm, KEY, [reply.text("noted")]);
    const id = crypto.randomUUID();
    const first = await openSession(id);
    const from = first.received.length;
    first.send({ type: "message", text: "keep an eye on it", attachments: [{ server: "everything", uri: TEXT }] });
    await first.turnEnd(from);
    first.close();

    await abortAllDurableObjects();
    const socket = await openSession(id);
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && s.state === "ready"));
    const tool = (name: string, args: Record<string, unknown>) =>
      workerFetch(`/api/tools/everything.${name}`, post({ arguments: args, approved: true, sessionId: id }));
    const mark = socket.received.length;
    expect((await tool("toggle-subscriber-updates", {})).status).toBe(200);
    try {
      // The update sent at once may race the new subscription; the one 5 s later rides on this call.
      const carrier = tool("trigger-long-running-operation", { duration: 7, steps: 1 });
      expect(await socket.next((m) => m.type === "resource_updated", mark, 15_000)).toEqual({ type: "resource_updated", server: "everything", uri: TEXT });
      await carrier;
    } finally {
      await tool("toggle-subscriber-updates", {});
    }
    socket.close();
  });
});
