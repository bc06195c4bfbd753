// Argument rules (issue 40, Speed, second half): a warm turn with 20 argument rules on its
// tool vs the same turn with the tool always-allowed, one Worker, same run. The real Worker
// under `wrangler dev` (the stack fixture), the fake Gemini calling filesystem.get_file_info
// once per turn and then answering. Chat A: the tool "always allowed". Chat B: 20 rules on
// the tool, made from 20 approvals (19 on folders the measured call is not in, then the
// one it is in, so every rule is read before the match), no always-allow. Measured: message
// sent → turn_end, in alternating blocks (A, B, B, A, …) so drift hits both alike; p50 B/A
// printed (goal ≤ 1.05). Audit recording (the other half) is not built yet, so B has
// rules only. Run: npx tsx bench/rules.ts
import { loadavg } from "node:os";
import { type ArgumentRule, compileRules } from "../src/approval/argument-rules";
import { reply, script } from "../tests/fixtures/fake-llm-script";
import type { Message, SessionClient } from "../tests/fixtures/session-client";
import { openSession } from "../tests/fixtures/session-client-node";
import { startStack } from "../tests/fixtures/stack";

const RULES = 20;
const WARMUP = 10;
const BLOCKS = 10;
const BLOCK = 15;
const GOAL = 1.05;
const TIMEOUT_MS = 30_000;

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;

/** A chat's socket, opened again when wrangler dev reloads the Worker (it watches src/, which others may be editing). */
class Chat {
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

/** The decision's own share, in process: 20 path rules on one tool, the 20th matching, per call (µs); the Worker reads the same compiled list. */
function inProcess(root: string): { compileUs: number; matchUs: number } {
  const rules: ArgumentRule[] = Array.from({ length: RULES }, (_, i) => ({
    id: `r${i}`,
    server: "filesystem",
    tool: "get_file_info",
    arg: "path",
    kind: "path",
    value: i === RULES - 1 ? `${root}/` : `${root}/elsewhere-${i}/`,
    scope: "chat",
    createdAt: 0,
  }));
  const t0 = performance.now();
  const match = compileRules(rules);
  const compileUs = (performance.now() - t0) * 1000;
  const n = 20_000;
  const args = { path: `${root}/notes.txt` };
  const t1 = performance.now();
  for (let i = 0; i < n; i++) if (!match("filesystem", "get_file_info", args)) throw new Error("no rule matched");
  return { compileUs, matchUs: ((performance.now() - t1) * 1000) / n };
}

async function main(): Promise<void> {
  // RATE_LIMIT_*: env.ts's maxima, as bench:turn runs (the default would refuse a bench's pace).
  const stack = await startStack({ vars: { RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000" } });
  const { url: llm } = stack.llm;
  const key = stack.llmKey;
  const measured = { path: `${stack.fsRoot}/notes.txt` };
  try {
    // Every turn without a script: get_file_info on notes.txt, then an answer.
    await fetch(`${llm}/__auto/${key}`, { method: "POST", body: JSON.stringify({ call: reply.call("filesystem__get_file_info", measured), text: "done" }) });
    const chatA = await Chat.open(stack.url);
    const chatB = await Chat.open(stack.url);
    const [a, b] = [chatA.client, chatB.client];
    // Both chats get the same setup turns (so their conversations, sent to the model each turn, are the same size):
    // A allows each once and the last always; B answers each with a rule.
    for (let i = 0; i < RULES; i++) {
      const last = i === RULES - 1;
      const folder = last ? `${stack.fsRoot}/` : `${stack.fsRoot}/elsewhere-${i}/`;
      // The call each rule answers must match it: a file in that folder (absent but for the last: an error result is fine).
      const setup = [reply.callReply("filesystem__get_file_info", { path: `${folder}file.txt` }), reply.text("ok")];
      await script(llm, key, setup);
      await answered(a, () => ({ approved: true, remember: last }));
      await script(llm, key, setup);
      await answered(b, () => ({ approved: true, rule: { arg: "path", kind: "path", value: folder, scope: "chat" } }));
    }
    const listed = b.received.filter((m): m is Message<"always_allowed"> => m.type === "always_allowed").at(-1);
    if (listed?.rules?.length !== RULES) throw new Error(`chat B lists ${listed?.rules?.length ?? 0} rules, not ${RULES}`);

    for (let i = 0; i < WARMUP; i++) {
      await chatA.turn();
      await chatB.turn();
    }
    const times = { a: [] as number[], b: [] as number[] };
    for (let block = 0; block < BLOCKS; block++) {
      const order = block % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
      for (const which of order) for (let i = 0; i < BLOCK; i++) times[which].push(await (which === "a" ? chatA : chatB).turn());
    }
    const [pa, pb] = [p(times.a, 0.5), p(times.b, 0.5)];
    console.log(
      `warm turns, one filesystem.get_file_info call each, ${BLOCKS} alternating blocks of ${BLOCK} (load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}):`,
    );
    console.log(`  A, tool always allowed:           p50 ${pa.toFixed(1)} ms, p90 ${p(times.a, 0.9).toFixed(1)} ms (n=${times.a.length})`);
    console.log(`  B, ${RULES} argument rules, 20th matches: p50 ${pb.toFixed(1)} ms, p90 ${p(times.b, 0.9).toFixed(1)} ms (n=${times.b.length})`);
    const local = inProcess(stack.fsRoot);
    console.log(
      `  in process: compiling the 20 rules ${local.compileUs.toFixed(0)} µs once per change; checking one call against them ${local.matchUs.toFixed(2)} µs`,
    );
    console.log(`  p50 B/A = ${(pb / pa).toFixed(3)} (goal <= ${GOAL}); sockets reopened after a Worker reload: A ${chatA.reopened}, B ${chatB.reopened}`);
    chatA.client.close();
    chatB.client.close();
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
