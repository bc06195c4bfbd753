// Fan-out of one streamed answer to everyone in a chat (issue 40, Speed, first half): five
// people on one chat (the owner and four invited viewers, each on their own socket signed in
// as themselves), the real Worker under `wrangler dev` (the stack fixture), the fake model
// streaming a paced answer. For every point of the answer (each delta's end as the first
// socket got it) the time it reached each of the five sockets: the spread, last − first,
// p50 and p95 (goal: p50 ≤ 5 ms). Baseline in the same run: a chat of two people (owner +
// one viewer), its turns alternating with the five-person chat's, printed beside it with
// the ratio. All sockets are in this one process: a frame's time is when its `message`
// event ran here (the client's own handling is in both figures alike).
// Run: npm run bench:fanout [-- --turns N]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { reply, script } from "../tests/fixtures/fake-llm-script";
import type { SessionClient } from "../tests/fixtures/session-client";
import { openSession } from "../tests/fixtures/session-client-node";
import { startStack, type Stack } from "../tests/fixtures/stack";
import { longAnswer, pieces } from "./lib/long-answer";

const cli = parseArgs({ options: { turns: { type: "string" } } }).values;
const TURNS = Number(cli.turns ?? 12);
const WARMUP = 2;
const PEOPLE = ["ann", "ben", "cat", "dan", "eve"] as const;
const ANSWER_KB = 8;
const PIECE = 40;
const PIECE_MS = 5;
const GOAL_MS = 5;
const TIMEOUT_MS = 60_000;

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;

/** Each socket's text arrivals of one turn: (characters so far, when). */
type Arrivals = { chars: number; at: number }[];

interface Member {
  name: string;
  socket: SessionClient;
  arrivals: Arrivals;
}

const tokenOf = (name: string) => `bench-${name}-token-0123456789abcdef`;
const bearer = (name: string) => ({ authorization: `Bearer ${tokenOf(name)}` });

/** A chat of `people` (the first owns it, the rest invited as viewers), every socket open. */
async function chatOf(stack: Stack, people: readonly string[]): Promise<Member[]> {
  const id = crypto.randomUUID();
  const members: Member[] = [];
  for (const [i, name] of people.entries()) {
    if (i > 0) {
      const invited = await fetch(`${stack.url}/sessions/${id}/people`, {
        method: "POST",
        headers: { ...bearer(people[0] ?? ""), "content-type": "application/json" },
        body: JSON.stringify({ name, role: "viewer" }),
      });
      if (invited.status !== 201) throw new Error(`inviting ${name}: ${invited.status} ${await invited.text()}`);
    }
    const member: Member = { name, socket: await openSession(stack.url, id, { timeoutMs: TIMEOUT_MS, headers: bearer(name) }), arrivals: [] };
    member.socket.observe({
      frame: (_text, _binary, message) => {
        if (message?.type !== "text") return;
        const last = member.arrivals.at(-1)?.chars ?? 0;
        member.arrivals.push({ chars: last + message.delta.length, at: performance.now() });
      },
    });
    members.push(member);
  }
  return members;
}

/** One streamed turn in the chat: each point's spread across its sockets (ms). */
async function turn(stack: Stack, members: Member[], answer: string[]): Promise<number[]> {
  const [owner] = members;
  if (!owner) throw new Error("no owner");
  await script(stack.llm.url, stack.llmKey, [reply.stream(answer, { chunkMs: PIECE_MS })]);
  const from = members.map((m) => m.socket.received.length);
  for (const m of members) m.arrivals = [];
  owner.socket.say("write it");
  await Promise.all(members.map((m, i) => m.socket.turnEnd(from[i], TIMEOUT_MS)));
  const total = answer.join("").length;
  for (const m of members) if ((m.arrivals.at(-1)?.chars ?? 0) !== total) throw new Error(`${m.name} got ${m.arrivals.at(-1)?.chars} of ${total} characters`);
  // A point of the answer: where one of the owner's frames ended. Each socket's time for it: its first frame reaching it.
  return owner.arrivals.map(({ chars }) => {
    const times = members.map((m) => m.arrivals.find((a) => a.chars >= chars)?.at ?? Number.NaN);
    return Math.max(...times) - Math.min(...times);
  });
}

async function main(): Promise<void> {
  const stack = await startStack({
    vars: {
      AUTH_MODE: "token",
      ACCESS_TOKENS: PEOPLE.map((name) => `${name}:${tokenOf(name)}`).join(","),
      RATE_LIMIT_PER_MINUTE: "10000",
      RATE_LIMIT_BURST: "1000",
    },
  });
  try {
    const answer = pieces(longAnswer(ANSWER_KB), PIECE);
    const five = await chatOf(stack, PEOPLE);
    const two = await chatOf(stack, PEOPLE.slice(0, 2));
    for (let i = 0; i < WARMUP; i++) {
      await turn(stack, five, answer);
      await turn(stack, two, answer);
    }
    const spreads = { five: [] as number[], two: [] as number[] };
    for (let i = 0; i < TURNS; i++) {
      // Alternating which goes first, so drift on a shared machine hits both alike.
      const order = i % 2 === 0 ? (["five", "two"] as const) : (["two", "five"] as const);
      for (const which of order) spreads[which].push(...(await turn(stack, which === "five" ? five : two, answer)));
    }
    const frames = (members: Member[]) => members[0]?.arrivals.length ?? 0;
    console.log(
      `a streamed answer of ${answer.join("").length} characters (${answer.length} deltas of ${PIECE}, one per ${PIECE_MS} ms; the last turn reached the owner in ${frames(five)} frames), ${TURNS} measured turns per chat (load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}):`,
    );
    const line = (label: string, xs: number[]) =>
      `  ${label}: spread (last socket − first) p50 ${p(xs, 0.5).toFixed(2)} ms, p95 ${p(xs, 0.95).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms (n=${xs.length} points)`;
    console.log(line("5 people", spreads.five));
    console.log(line("2 people (baseline)", spreads.two));
    console.log(
      `  p50 5 people ${p(spreads.five, 0.5).toFixed(2)} ms (goal <= ${GOAL_MS} ms); p50 5/2 = ${(p(spreads.five, 0.5) / p(spreads.two, 0.5)).toFixed(2)}x`,
    );
    for (const m of [...five, ...two]) m.socket.close();
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
