// The chat loop's frames tried the way an outsider would, with alice and bob signed in at
// once: bob names alice's turns in regenerate, edit and switch_branch from his own session,
// revokes her always-allowed tool, and sends oversized and malformed versions of the new
// frames. Each is refused with a typed error, and neither session loses anything.
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type Message, type SessionClient } from "../../fixtures/session-client";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const is = frameOf;

/** The error a frame gets back. */
async function refusal(socket: SessionClient, frame: Record<string, unknown>): Promise<Message<"error">> {
  const from = socket.received.length;
  socket.send(frame);
  return socket.next(is("error"), from);
}

/** A fresh socket's history: what the session holds now. */
async function historyOf(id: string, user: "alice" | "bob"): Promise<Message<"history">> {
  const socket = await openSession(id, user);
  const history = await socket.next(is("history"), 0);
  socket.close();
  return history;
}

describe("the chat loop's frames from an outsider", () => {
  it("never lets bob's session reach alice's turns or her always-allowed tools", async () => {
    await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "outsider-1" }), reply.text("Alice's answer.")]);
    const aliceId = crypto.randomUUID();
    const alice = await openSession(aliceId, "alice");
    const from = alice.received.length;
    alice.send({ type: "message", text: "alice's private question" });
    const asked = await alice.next(is("approval_request"), from);
    alice.send({ type: "approval", callId: asked.callId, approved: true, remember: true });
    const { end } = await alice.turnEnd(from);
    const before = await historyOf(aliceId, "alice");

    // Bob cannot open her session at all.
    await expect(openSession(aliceId, "bob")).rejects.toThrow();

    // From his own session, her turn id is just unknown: no version of it is made, nothing of hers is read.
    const bob = await openSession(crypto.randomUUID(), "bob");
    expect(await refusal(bob, { type: "regenerate", turnId: end.turnId })).toMatchObject({ code: "unknown_turn" });
    expect(await refusal(bob, { type: "edit", turnId: end.turnId, text: "rewritten by bob" })).toMatchObject({ code: "unknown_turn" });
    expect(await refusal(bob, { type: "switch_branch", turnId: end.turnId })).toMatchObject({ code: "unknown_turn" });
    // Her "Always allow" is hers: his session has none to revoke, and hers keeps it.
    expect(await refusal(bob, { type: "revoke_always", tool: "filesystem.get_file_info" })).toMatchObject({ code: "not_always_allowed" });
    expect(bob.received.filter(is("always_allowed"))).toEqual([{ type: "always_allowed", tools: [] }]);

    // Malformed and oversized versions of the new frames: typed errors naming the field.
    expect(await refusal(bob, { type: "revoke_always", tool: "x".repeat(401) })).toMatchObject({
      code: "bad_message",
      message: expect.stringContaining("tool"),
    });
    expect(await refusal(bob, { type: "revoke_always" })).toMatchObject({ code: "bad_message", message: expect.stringContaining("tool") });
    expect(await refusal(bob, { type: "edit", turnId: end.turnId, text: "   " })).toMatchObject({
      code: "bad_message",
      message: expect.stringContaining("text is empty"),
    });
    expect(await refusal(bob, { type: "switch_branch", turnId: "../../etc" })).toMatchObject({ code: "unknown_turn" });
    expect(await refusal(bob, { type: "switch_branch", turnId: "t".repeat(129) })).toMatchObject({ code: "bad_message" });
    expect(await refusal(bob, { type: "set_model", provider: "user:someone-else", model: "x" })).toMatchObject({ code: "model_not_available" });
    bob.close();

    // Alice's session is as she left it, her tool still always allowed.
    expect(await historyOf(aliceId, "alice")).toEqual(before);
    const again = await openSession(aliceId, "alice");
    expect(await again.next(is("always_allowed"), 0)).toEqual({ type: "always_allowed", tools: ["filesystem.get_file_info"] });
    again.close();
    alice.close();
  });
});
