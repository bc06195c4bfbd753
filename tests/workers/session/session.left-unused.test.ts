// A chat its page left before anything was sent in it (the page closes its socket with
// LEFT_UNUSED_CLOSE as the tab closes or reloads): the real ChatSession deletes it after a
// grace, by its alarm, unless a page came back to it (a reload reuses it) or it has entries.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { LEFT_UNUSED_CLOSE, type ChatSession } from "../../../src/session/ChatSession";
import { openSession, workerFetch } from "../worker-fetch";

const json = { "content-type": "application/json" };
const sessions = () => (env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
const inSession = <T>(id: string, run: (instance: ChatSession) => Promise<T> | T) => runInDurableObject(sessions().get(sessions().idFromName(id)), run);
const listed = async () => ((await (await workerFetch("/api/sessions", {}, "dave")).json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
const newChat = async () => ((await (await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" }, "dave")).json()) as { id: string }).id;
/** The socket closed with LEFT_UNUSED_CLOSE has been seen by the session: its drop is scheduled. */
const dropScheduled = (id: string) =>
  expect.poll(() => inSession(id, (instance) => instance.getSchedules().some((s) => s.callback === "dropIfLeftUnused")), { timeout: 10_000 }).toBe(true);

describe("a chat its page left unused", () => {
  it("is deleted by its alarm after the grace, and leaves its owner's list", async () => {
    const id = await newChat();
    await (await openSession(id, "dave")).close(LEFT_UNUSED_CLOSE, "left unused");
    await dropScheduled(id);
    expect(await listed()).toContain(id);
    // The real alarm, a few seconds on.
    await expect.poll(listed, { timeout: 20_000, interval: 250 }).not.toContain(id);
  });

  it("is kept when a page comes back to it within the grace (a reload)", async () => {
    const id = await newChat();
    await (await openSession(id, "dave")).close(LEFT_UNUSED_CLOSE, "left unused");
    await dropScheduled(id);
    const back = await openSession(id, "dave");
    expect(await inSession(id, (instance) => instance.dropIfLeftUnused())).toBe(false);
    expect(await listed()).toContain(id);
    await back.close();
  });

  it("is kept once something is in it, whatever the page said", async () => {
    const id = await newChat();
    const call = await workerFetch(
      "/api/tools/filesystem.list_allowed_directories",
      { method: "POST", headers: json, body: JSON.stringify({ arguments: {}, sessionId: id }) },
      "dave",
    );
    expect(call.status).toBe(200);
    await (await openSession(id, "dave")).close(LEFT_UNUSED_CLOSE, "left unused");
    expect(await inSession(id, (instance) => instance.dropIfLeftUnused())).toBe(false);
    expect(await listed()).toContain(id);
  });
});
