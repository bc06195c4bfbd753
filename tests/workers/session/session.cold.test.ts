// A session whose object was evicted answers its first message from what its
// servers offered last time (kept in storage), while the connections open again;
// a tool call the model makes then waits for its server.
import { abortAllDurableObjects } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const declared = (body: Record<string, unknown> | undefined) =>
  ((body?.tools as { functionDeclarations?: { name: string }[] }[] | undefined) ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);

describe("a cold session", () => {
  it("offers last time's tools on its first model call after eviction, and runs a call once its server is back", async () => {
    const id = crypto.randomUUID();
    await script(llm, KEY, [reply.text("hello")]);
    const first = await openSession(id);
    await first.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "filesystem" && s.state === "ready"));
    const warmFrom = first.received.length;
    first.send({ type: "message", text: "hi" });
    await first.turnEnd(warmFrom);
    first.close();
    const warmTools = declared((await requests(llm, KEY))[0]?.body);
    expect(warmTools).toContain("filesystem__list_directory");

    await abortAllDurableObjects();
    await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
    await script(llm, KEY, [reply.callReply("filesystem__list_directory", { path: root }), reply.text("You have notes.txt.")]);
    const cold = await openSession(id);
    const from = cold.received.length;
    cold.send({ type: "message", text: "what files?" });
    const { end, messages } = await cold.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(declared((await requests(llm, KEY))[0]?.body)).toEqual(warmTools);
    expect(messages).toContainEqual(expect.objectContaining({ type: "status", state: "complete", tool: "list_directory" }));
    cold.close();
  });
});
