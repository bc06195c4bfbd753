// The audit trail's cost on a warm turn (issue 40, Speed, second half): a warm turn with audit
// recording and 20 argument rules vs the same turn without either, same run. Recording is a
// deployment setting (AUDIT_RETENTION_DAYS; 0 records nothing), so the run starts two real
// Workers under `wrangler dev` (the stack fixture), alike but for that setting:
//   on  (AUDIT_RETENTION_DAYS=90): chat R, the tool covered by 20 argument rules (the 20th
//       matching), and chat A, the tool always allowed (audit alone);
//   off (AUDIT_RETENTION_DAYS=0):  chat A, the tool always allowed (the baseline).
// The fake Gemini calls filesystem.get_file_info once per turn and then answers; every chat
// had the same 20 setup turns (bench/lib/rule-chats.ts). Measured: message sent → turn_end,
// in blocks rotated each round (so drift on a shared machine hits all alike), after warm-up.
// Printed: p50/p90 each, p50 on-R / off-A (goal ≤ 1.05) and on-A / off-A (audit alone), and
// that the on Worker's rows arrived in the account (and the off one's did not).
// Run: npm run bench:audit [-- --blocks N]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { startStack, type Stack } from "../tests/fixtures/stack";
import { autoTurns, Chat, p, RULES, setUp } from "./lib/rule-chats";

const cli = parseArgs({ options: { blocks: { type: "string" } } }).values;
const WARMUP = 10;
const BLOCKS = Number(cli.blocks ?? 10);
const BLOCK = 10;
const GOAL = 1.05;

// RATE_LIMIT_*: env.ts's maxima, as bench:turn runs (the default would refuse a bench's pace).
const vars = (days: number) => ({ RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000", AUDIT_RETENTION_DAYS: String(days) });

/** How many audit rows the (single, dev-mode) person's account holds, through the Worker's own route. */
async function rows(stack: Stack): Promise<number> {
  let count = 0;
  let before: string | undefined;
  for (;;) {
    const response = await fetch(`${stack.url}/api/audit?limit=200${before ? `&before=${before}` : ""}`);
    if (!response.ok) throw new Error(`GET /api/audit: ${response.status}`);
    const page = (await response.json()) as { records: unknown[]; next?: string };
    count += page.records.length;
    if (!page.next) return count;
    before = page.next;
  }
}

async function main(): Promise<void> {
  const [on, off] = await Promise.all([startStack({ vars: vars(90) }), startStack({ vars: vars(0) })]);
  try {
    await Promise.all([autoTurns(on), autoTurns(off)]);
    const chats = { onRules: await Chat.open(on.url), onAlways: await Chat.open(on.url), offAlways: await Chat.open(off.url) };
    await setUp(on, chats.onRules, "rules");
    await setUp(on, chats.onAlways, "always");
    await setUp(off, chats.offAlways, "always");
    await Promise.all([autoTurns(on), autoTurns(off)]);
    const names = Object.keys(chats) as (keyof typeof chats)[];
    for (let i = 0; i < WARMUP; i++) for (const name of names) await chats[name].turn();
    const times: Record<keyof typeof chats, number[]> = { onRules: [], onAlways: [], offAlways: [] };
    for (let block = 0; block < BLOCKS; block++) {
      const order = names.map((_, i) => names[(i + block) % names.length] as keyof typeof chats);
      for (const name of order) for (let i = 0; i < BLOCK; i++) times[name].push(await chats[name].turn());
    }
    const line = (label: string, xs: number[]) => `  ${label} p50 ${p(xs, 0.5).toFixed(1)} ms, p90 ${p(xs, 0.9).toFixed(1)} ms (n=${xs.length})`;
    console.log(
      `warm turns, one filesystem.get_file_info call each, ${BLOCKS} rotated blocks of ${BLOCK} (load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}):`,
    );
    console.log(line(`audit on,  ${RULES} argument rules (20th matches):`, times.onRules));
    console.log(line("audit on,  tool always allowed:              ", times.onAlways));
    console.log(line("audit off, tool always allowed (baseline):   ", times.offAlways));
    const base = p(times.offAlways, 0.5);
    console.log(`  p50 (audit + ${RULES} rules) / baseline = ${(p(times.onRules, 0.5) / base).toFixed(3)} (goal <= ${GOAL})`);
    console.log(`  p50 (audit alone) / baseline = ${(p(times.onAlways, 0.5) / base).toFixed(3)}`);
    // The setting did what it says: the on Worker kept a row per decided call (its chats' setup, warm-up and measured
    // turns; the last ones reach the account within the outbox's 2 s), the off one none.
    const expected = 2 * (RULES + WARMUP + BLOCKS * BLOCK);
    const until = Date.now() + 10_000;
    let kept = await rows(on);
    while (kept < expected && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      kept = await rows(on);
    }
    const none = await rows(off);
    console.log(
      `  audit rows in the account: on ${kept} of ${expected} calls, off ${none}; sockets reopened after a Worker reload: ${names.map((n) => chats[n].reopened).join("/")}`,
    );
    for (const name of names) chats[name].client.close();
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
