// The open questions of a session: one question per id, never replaced.
import { describe, expect, it } from "vitest";
import { Approvals } from "../../src/approval/approvals";
import type { ServerMessage } from "../../src/protocol/messages";

function approvals() {
  const sent: ServerMessage[] = [];
  const settings = new Map<string, unknown>();
  const store = {
    getSetting: <T>(key: string) => settings.get(key) as T | undefined,
    setSetting: (key: string, value: unknown) => void settings.set(key, value),
  };
  return { sent, approvals: new Approvals({ required: true, alwaysAllow: () => [], store, broadcast: (m) => sent.push(m) }) };
}

describe("Approvals", () => {
  it("refuses a second question under an id that is still open, and the answer settles only the first", async () => {
    const { sent, approvals: a } = approvals();
    const signal = new AbortController().signal;
    const first = a.approveTool("t", { callId: "same", server: "fs", tool: "list_directory", arguments: {} }, signal);
    const second = await a.approveTool("t", { callId: "same", server: "fs", tool: "write_file", arguments: { path: "x" } }, signal);
    expect(second).toBe(false);
    expect(sent).toEqual([{ type: "approval_request", turnId: "t", callId: "same", kind: "tool", server: "fs", tool: "list_directory", arguments: {} }]);
    expect(a.pending()).toHaveLength(1);
    expect(a.answer({ type: "approval", callId: "same", approved: true })).toEqual({ ok: true });
    expect(await first).toBe(true);
    expect(a.answer({ type: "approval", callId: "same", approved: true })).toMatchObject({ ok: false, code: "unknown_approval" });
  });
});
