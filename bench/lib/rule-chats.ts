// Warm one-call turns on the real Worker for the rule and audit benches (bench/rules.ts,
// bench/audit.ts): a chat whose filesystem.get_file_info call runs unasked, either because
// the tool is always allowed or because 20 argument rules cover it (the 20th matching, so
// every rule is read before the match). Both kinds get the same setup turns, so the
// conversations sent to the model each turn are the same size.
import { reply, script } from "../../tests/fixtures/fake-llm-script";
import type { Message, SessionClient } from "../../tests/fixtures/session-client";
import { openSession } from "../../tests/fixtures/session-client-node";
import type { Stack } from "../../tests/fixtures/stack";

export const RULES = 20;
const TIMEOUT_MS = 30_000;

export const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;

/** A chat's socket, opened again when wrangler dev reloads the Worker (it watches src/, which others may be editing). */
export class Chat {
  reopened = 0;
  private constructor(
    private readonly url: string,
    readonly id: string,
    public client: SessionClient,
  ) {}

  static async open(url: string): Promise<Chat> {
    const id = crypto.randomUUID();
    return new Chat(url, id, await openSession(url, id, { timeoutMs: TIMEOUT_MS }));
  }

  /** A measured turn; a turn cut by a closed socket is run again on a fresh one and not counted. */
  async turn(): Promise<number> {
    for (;;) {
      try {
        return await turn(this.client);
      } catch (error) {
        if (!this.client.isClosed || this.reopened >= 5) throw error;
        this.reopened++;
        this.client = await openSession(this.url, this.id, { timeoutMs: TIMEOUT_MS });
      }
    }
  }
}

/** One turn whose call must run unasked: ms from `message` to `turn_end`. */
async function turn(chat: SessionClient): Promise<number> {
  const from = chat.received.length;
  const start = performance.now();
  chat.say("how big are my notes");
  const { end, messages } = await chat.turnEnd(from, TIMEOUT_MS);
  const ms = performance.now() - start;
  if (end.reason !== "complete") throw new Error(`turn ended ${end.reason}`);
  if (messages.some((m) => m.type === "approval_request")) throw new Error("a measured call asked for approval");
  if (!messages.some((m) => m.type === "status" && m.state === "complete")) throw new Error("the tool call did not complete");
  return ms;
}

/** A setup turn whose call asks: answered with `answer`. */
async function answered(chat: SessionClient, answer: (callId: string) => Record<string, unknown>): Promise<void> {
  const from = chat.received.length;
  chat.say("setup");
  const asked = (await chat.next((m) => m.type === "approval_request", from, TIMEOUT_MS)) as Message<"approval_request">;
  chat.send({ type: "approval", callId: asked.callId, ...answer(asked.callId) } as never);
  const { end } = await chat.turnEnd(from, TIMEOUT_MS);
  if (end.reason !== "complete") throw new Error(`setup turn ended ${end.reason}`);
}

/** Every turn without a script on this stack: get_file_info on notes.txt, then an answer. */
export async function autoTurns(stack: Stack): Promise<void> {
  const measured = { path: `${stack.fsRoot}/notes.txt` };
  await fetch(`${stack.llm.url}/__auto/${stack.llmKey}`, {
    method: "POST",
    body: JSON.stringify({ call: reply.call("filesystem__get_file_info", measured), text: "done" }),
  });
}

/**
 * Sets `chat` up with RULES approvals: "always" on the last (kind "always"), or each answered
 * with a path rule (kind "rules": 19 on folders the measured call is not in, then its own).
 */
export async function setUp(stack: Stack, chat: Chat, kind: "always" | "rules"): Promise<void> {
  for (let i = 0; i < RULES; i++) {
    const last = i === RULES - 1;
    const folder = last ? `${stack.fsRoot}/` : `${stack.fsRoot}/elsewhere-${i}/`;
    // The call each rule answers must match it: a file in that folder (absent but for the last: an error result is fine).
    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__get_file_info", { path: `${folder}file.txt` }), reply.text("ok")]);
    await answered(chat.client, () =>
      kind === "always" ? { approved: true, remember: last } : { approved: true, rule: { arg: "path", kind: "path", value: folder, scope: "chat" } },
    );
  }
  if (kind === "rules") {
    const listed = chat.client.received.filter((m): m is Message<"always_allowed"> => m.type === "always_allowed").at(-1);
    if (listed?.rules?.length !== RULES) throw new Error(`the chat lists ${listed?.rules?.length ?? 0} rules, not ${RULES}`);
  }
}
