// A person's own instructions and presets through the real Worker in workerd, with the
// fake model and the real bridge's servers: the routes and their caps and typed errors,
// one person never seeing another's presets, the instructions reaching the model's system
// text after the operator's SYSTEM_PROMPT (both there, the operator's first), and a preset
// applied to a chat (POST /sessions {preset}, the apply_preset frame): its model, its
// servers, its instructions, and an unknown id refused with the socket going on.
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { frameOf } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const json = { "content-type": "application/json" };
const OPERATOR = "Operator rule: this is the test deployment.";

async function call(path: string, init: RequestInit = {}, user: TestUser = "carol") {
  const response = await workerFetch(path, init, user);
  const text = response.status === 204 ? "" : await response.text();
  // `any`: the answers are read field by field, each checked by an expect.
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}
const send = (method: string, path: string, body: unknown, user: TestUser = "carol") => call(path, { method, headers: json, body: JSON.stringify(body) }, user);

/** The system text of the fake model's newest request. */
async function lastSystem(): Promise<string> {
  const body = (await requests(llm, KEY)).at(-1)?.body as { systemInstruction?: { parts: { text: string }[] } } | undefined;
  return (body?.systemInstruction?.parts ?? []).map((p) => p.text).join("");
}

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

describe("a person's instructions and presets", () => {
  it("keeps presets per person, capped, with typed errors; another person's id is unknown", async () => {
    const made = await send("POST", "/api/presets", { name: "Research", instructions: "Cite sources.", servers: ["filesystem"] });
    expect(made.status).toBe(201);
    const id = made.body.preset.id as string;
    expect(made.body.preset).toEqual({ id, name: "Research", instructions: "Cite sources.", servers: ["filesystem"] });
    expect((await call("/api/presets")).body.presets).toContainEqual(made.body.preset);

    const edited = await send("PUT", `/api/presets/${id}`, { name: "Research 2", model: { provider: "gemini", model: "gemini-2.5-flash" } });
    expect(edited.body.preset).toEqual({ id, name: "Research 2", model: { provider: "gemini", model: "gemini-2.5-flash" } });

    // bob sees none of carol's, and cannot change or delete them.
    expect(JSON.stringify((await call("/api/presets", {}, "bob")).body)).not.toContain(id);
    expect((await send("PUT", `/api/presets/${id}`, { name: "Mine" }, "bob")).body.error.code).toBe("preset_unknown");
    expect((await call(`/api/presets/${id}`, { method: "DELETE" }, "bob")).status).toBe(404);
    expect((await send("POST", "/sessions", { preset: id }, "bob")).body.error.code).toBe("preset_unknown");

    const bad = await send("POST", "/api/presets", { name: "x".repeat(41), instructions: "y".repeat(4001) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["instructions", "name"]);

    // PRESETS_PER_USER is 20: fill up to it, then one more is refused.
    const have = (await call("/api/presets")).body.presets.length as number;
    for (let i = have; i < 20; i++) expect((await send("POST", "/api/presets", { name: `P${i}` })).status).toBe(201);
    const over = await send("POST", "/api/presets", { name: "One too many" });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe("too_many_presets");

    expect((await call(`/api/presets/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`/api/presets/${id}`, { method: "DELETE" })).body.error.code).toBe("preset_unknown");
    for (const p of (await call("/api/presets")).body.presets) await call(`/api/presets/${p.id}`, { method: "DELETE" });
    expect((await call("/api/presets")).body.presets).toEqual([]);
  });

  it("adds the person's instructions after the operator's SYSTEM_PROMPT, and follows a change at the next turn", async () => {
    expect((await send("PUT", "/api/me/instructions", { instructions: "x".repeat(4001) })).status).toBe(400);
    expect((await send("PUT", "/api/me/instructions", { instructions: "  Answer in French.  " })).body).toEqual({ instructions: "Answer in French." });
    expect((await call("/api/me/instructions")).body).toEqual({ instructions: "Answer in French." });
    expect((await call("/api/me/instructions", {}, "bob")).body).toEqual({ instructions: "" });

    const socket = await openSession(crypto.randomUUID(), "carol");
    await script(llm, KEY, [reply.text("Bonjour."), reply.text("Hello.")]);
    await socket.turnEnd(socket.say("hi"));
    const system = await lastSystem();
    expect(system).toContain(OPERATOR);
    expect(system).toContain("## The person's own instructions\nAnswer in French.");
    expect(system.indexOf(OPERATOR)).toBeLessThan(system.indexOf("Answer in French."));
    // After the tool rules too: the person's words add to them, never stand before them.
    expect(system.indexOf("You can call tools")).toBeLessThan(system.indexOf("Answer in French."));

    // Changed: the next turn's admission brings the new text (bob's chats never had carol's).
    await send("PUT", "/api/me/instructions", { instructions: "" });
    await socket.turnEnd(socket.say("again"));
    const after = await lastSystem();
    expect(after).toContain(OPERATOR);
    expect(after).not.toContain("Answer in French.");
    socket.close();
  });

  it("applies a preset at creation and with apply_preset: model, servers, instructions; an unknown id is refused and the socket goes on", async () => {
    const research = (
      await send("POST", "/api/presets", {
        name: "Research",
        model: { provider: "gemini", model: "gemini-2.5-flash" },
        instructions: "Always cite sources.",
        servers: ["filesystem", "nowhere"],
      })
    ).body.preset;
    const created = await send("POST", "/sessions", { preset: research.id });
    expect(created.status).toBe(201);
    expect(created.body.errors).toBeUndefined();
    const socket = await openSession(created.body.id, "carol");
    const servers = await socket.next(frameOf("servers"));
    expect(Object.fromEntries(servers.servers.map((s) => [s.name, s.enabled]))).toMatchObject({ filesystem: true, everything: false });
    expect(socket.history().map((e) => e.text)).toContain("Preset ‘Research’ applied. This chat has no server “nowhere”: left out.");

    await script(llm, KEY, [reply.text("Sourced.")]);
    await socket.turnEnd(socket.say("hi"));
    const system = await lastSystem();
    expect(system).toContain("## This chat's preset (Research)\nAlways cite sources.");
    expect(system.indexOf(OPERATOR)).toBeLessThan(system.indexOf("Always cite sources."));

    // A preset whose model this chat may not use: model_not_available, and its servers still apply.
    const odd = (await send("POST", "/api/presets", { name: "Odd", model: { provider: "gemini", model: "gemini-9-ultra" }, servers: ["everything"] })).body
      .preset;
    let from = socket.received.length;
    socket.send({ type: "apply_preset", id: odd.id });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "model_not_available" });
    const switched = await socket.next(frameOf("servers"), from);
    expect(Object.fromEntries(switched.servers.map((s) => [s.name, s.enabled]))).toMatchObject({ filesystem: false, everything: true });
    await socket.next((m) => m.type === "entry" && m.entry.text === "Preset ‘Odd’ applied.", from);

    from = socket.received.length;
    socket.send({ type: "apply_preset", id: crypto.randomUUID() });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "preset_unknown" });
    socket.send({ type: "ping" });
    await socket.next((m) => m.type === "pong", from);

    // bob cannot apply carol's preset in his own chat: it is not his.
    const bobs = await openSession(crypto.randomUUID(), "bob");
    from = bobs.received.length;
    bobs.send({ type: "apply_preset", id: research.id });
    expect(await bobs.next((m) => m.type === "error", from)).toMatchObject({ code: "preset_unknown" });
    bobs.close();
    socket.close();
    for (const p of [research, odd]) await call(`/api/presets/${p.id}`, { method: "DELETE" });
  });
});
