// Scheduled runs (issue 39, Speed): a schedule's alarm to the model's first request, and what
// an idle chat with one daily schedule costs a day. The real Worker under `wrangler dev` (the
// stack fixture) with its real alarms, the fake Gemini in this process (its request times
// share this clock). CHATS chats each get a `once` schedule at the next whole minute that is at
// least 20 s away (the grammar's finest time), made while a page is open; the page then closes,
// so each run starts on the object's alarm with nobody watching. Measured per chat: the
// schedule's due time (its `nextAt`, epoch ms) → the model's first request for its turn (p50,
// max): the alarm's own lateness plus opening the turn. Baseline from the same run: a typed
// message on an open page → the model's first request (the same turn without the alarm).
// Then what an idle chat with one daily schedule costs a day (alarm wakes, rows written),
// measured in workerd, where the clock can be moved and storage metered
// (bench/workerd/schedule-cost.bench.ts, through vitest with bench/workerd/vitest.config.ts).
// Run: npm run bench:schedule (both), npm run bench:schedule -- --cost (the cost only)
import { modelTimes, reply, script } from "../tests/fixtures/fake-llm-script";
import { openSession } from "../tests/fixtures/session-client-node";
import { startStack } from "../tests/fixtures/stack";
import { spawn } from "node:child_process";
import { repoRoot, sleep } from "./lib/procs";

const CHATS = 5;

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;
/** The fake's `performance.now()` of this process as epoch ms (the Worker's `nextAt` is epoch ms of the same machine). */
const epoch = (at: number) => performance.timeOrigin + at;

function nextMinute(): { when: string; at: number } {
  const at = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, "0");
  return { when: `once ${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`, at };
}

/** Runs the workerd bench and prints its `cost|` lines (it prints nothing else worth keeping). */
async function idleCost(): Promise<void> {
  const child = spawn("npx", ["vitest", "run", "--config", "bench/workerd/vitest.config.ts"], {
    cwd: repoRoot,
    env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const lines = out.split("\n").flatMap((l) => {
    const at = l.indexOf("cost| ");
    return at >= 0 ? [l.slice(at + 6)] : [];
  });
  if (code !== 0 || lines.length === 0) throw new Error(`the workerd bench failed (${code}):\n${(out + err).slice(-3000)}`);
  console.log("idle chat with one daily schedule, per day (measured in workerd):");
  for (const l of lines) console.log(`  ${l}`);
}

async function main(): Promise<void> {
  const stack = await startStack();
  const key = stack.llmKey;
  const requestsSoFar = async () => (await modelTimes(stack.llm.url, key)).length;
  try {
    // Baseline: a typed message's turn, page open.
    const baseline: number[] = [];
    for (let i = 0; i < CHATS; i++) {
      await script(stack.llm.url, key, [reply.text("typed")]);
      const page = await openSession(stack.url, crypto.randomUUID());
      const before = await requestsSoFar();
      const sent = performance.now();
      page.send({ type: "message", text: "hello" });
      await page.turnEnd(0, 30_000);
      baseline.push(((await modelTimes(stack.llm.url, key))[before]?.at ?? Number.NaN) - sent);
      page.close();
    }

    // One `once` schedule per chat, all due at the same whole minute; the replies queued in order.
    const { when, at } = nextMinute();
    await script(
      stack.llm.url,
      key,
      Array.from({ length: CHATS }, () => reply.text("scheduled answer")),
    );
    const before = await requestsSoFar();
    const due: number[] = [];
    for (let i = 0; i < CHATS; i++) {
      const id = crypto.randomUUID();
      const page = await openSession(stack.url, id);
      const made = await fetch(`${stack.url}/sessions/${id}/schedules`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: stack.url },
        body: JSON.stringify({ when, timeZone: "UTC", text: `scheduled ${i}` }),
      });
      if (made.status !== 201) throw new Error(`schedule refused: ${made.status} ${await made.text()}`);
      due.push(((await made.json()) as { nextAt: number }).nextAt);
      page.close();
    }
    if (due.some((d) => d !== at)) throw new Error(`due ${due.join(",")} is not ${at}`);
    // Wait for the real alarms (no time is moved here): until every run's first request came.
    const deadline = Date.now() + (at - Date.now()) + 60_000;
    while ((await requestsSoFar()) < before + CHATS && Date.now() < deadline) await sleep(200);
    const firsts = (await modelTimes(stack.llm.url, key)).slice(before).map((t) => epoch(t.at) - at);
    console.log(`chats: ${CHATS}, each with one "once" schedule due at ${new Date(at).toISOString()} (alarms for real, pages closed)`);
    console.log(
      `schedule due -> model's first request: p50 ${p50(firsts).toFixed(0)} ms, max ${Math.max(...firsts).toFixed(0)} ms (${firsts.map((x) => x.toFixed(0)).join(", ")}); ${firsts.length}/${CHATS} ran`,
    );
    console.log(`baseline, a typed message on an open page -> model's first request: p50 ${p50(baseline).toFixed(1)} ms (same run)`);
  } finally {
    await stack.stop();
  }
}

if (!process.argv.includes("--cost")) await main();
await idleCost();
process.exit(0);
