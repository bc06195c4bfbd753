// Argument rules (issue 40, Speed, second half): a warm turn with 20 argument rules on its
// tool vs the same turn with the tool always-allowed, one Worker, same run. The real Worker
// under `wrangler dev` (the stack fixture), the fake Gemini calling filesystem.get_file_info
// once per turn and then answering. Chat A: the tool "always allowed". Chat B: 20 rules on
// the tool, made from 20 approvals (19 on folders the measured call is not in, then the
// one it is in, so every rule is read before the match), no always-allow. Measured: message
// sent → turn_end, in alternating blocks (A, B, B, A, …) so drift hits both alike; p50 B/A
// printed (goal ≤ 1.05). Audit recording with the rules: bench/audit.ts. Run: npx tsx bench/rules.ts
import { loadavg } from "node:os";
import { type ArgumentRule, compileRules } from "../src/approval/argument-rules";
import { startStack } from "../tests/fixtures/stack";
import { autoTurns, Chat, p, RULES, setUp } from "./lib/rule-chats";

const WARMUP = 10;
const BLOCKS = 10;
const BLOCK = 15;
const GOAL = 1.05;

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
  try {
    await autoTurns(stack);
    const chatA = await Chat.open(stack.url);
    const chatB = await Chat.open(stack.url);
    // Both chats get the same setup turns: A allows each once and the last always; B answers each with a rule.
    await setUp(stack, chatA, "always");
    await setUp(stack, chatB, "rules");
    // The setup's scripts are spent: every turn from here is the auto one.
    await autoTurns(stack);
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
