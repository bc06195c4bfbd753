// The Worker's share of Enter -> first token, without a browser (issue 37, "first token
// on screen"): a Node socket sends a chat message and the fake model (in this process,
// so one clock) records when its request arrived and when it wrote its first chunk, for
// this tree and another checkout (default /work/base-5128) in the same run, turns
// alternating. Per turn: socket send -> model request (the Worker's path to the model:
// the frame, admission, storage, building the request), model's first chunk -> first
// `text` frame at the socket (the stream's parsing and the frame), and send -> first
// `text` frame. Both through wrangler dev's proxy (as a browser goes) and to workerd
// directly (the proxy's hop is dev-only), median of N turns each.
// `--syscalls`: also one turn of this tree's (direct) as syscalls on one clock (perf trace: workerd's
// storage commits, socket reads and writes, and the fake model's reads and writes in this process)
// between the send and the first `text` frame.
// `--model-ms N`: the fake model takes N ms to its first chunk (a real one does), so a commit the
// first text frame waits for can overlap the model's own time.
// `--budget N`: this tree runs with DAILY_TOKEN_BUDGET=N (the base without), so admission's confirmed writes
// (a budget's usage and its hold, src/users/reservations.ts) are on this tree's path: what they cost.
// Run: npx tsx bench/first-token.ts [--base DIR] [--turns N] [--model-ms N] [--syscalls] [--budget N]
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { requests, reply, script } from "../tests/fixtures/fake-llm-script";
import { openSession } from "../tests/fixtures/session-client-node";
import type { SessionClient } from "../tests/fixtures/session-client";
import { descendantsOf, errorText, repoRoot } from "./lib/procs";
import { OneToolTurnFixture } from "./lib/one-tool-turn";
import { startWorker } from "./lib/turn-worker";
import { traceSyscalls } from "./lib/syscall-timeline";

const cli = parseArgs({
  options: {
    base: { type: "string" },
    turns: { type: "string" },
    syscalls: { type: "boolean" },
    "model-ms": { type: "string" },
    budget: { type: "string" },
  },
}).values;
/** The fake model's own time before its first chunk (`--model-ms`; 0: at once): what a commit on the path can hide behind. */
const MODEL_MS = Number(cli["model-ms"] ?? 0);
const BASE = cli.base ?? "/work/base-5128";
const TURNS = Number(cli.turns ?? 30);
const WARMUP = 5;
const KEY = "bench-first-token";
const log = (text: string) => process.stderr.write(`first-token: ${text}\n`);

interface Row {
  toModel: number[];
  fromModel: number[];
  toText: number[];
  ours: number[];
  oursArrived: number[];
}

/** One text-only turn: the figures on this process's clock. */
async function turn(
  client: SessionClient,
  fakeUrl: string,
  text: string,
  beforeSend?: () => void,
): Promise<{ toModel: number; fromModel: number; toText: number; ours: number; oursArrived: number; sentAt: number }> {
  await script(fakeUrl, KEY, [reply.stream(["The first words ", "of a short answer."], { firstChunkMs: MODEL_MS })]);
  let sent = 0;
  let firstText = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no turn_end within 20 s")), 20_000);
    const stop = client.observe({
      frame: (_t, _b, m) => {
        if (m?.type === "text" && !firstText) firstText = performance.now();
        if (m?.type === "error") reject(new Error(`error ${m.code}: ${m.message}`));
        if (m?.type === "turn_end") {
          clearTimeout(timer);
          stop();
          resolve();
        }
      },
    });
    beforeSend?.();
    sent = performance.now();
    client.say(text);
  });
  const request = (await requests(fakeUrl, KEY)).at(-1);
  if (request?.at === undefined || request.firstChunkAt === undefined) throw new Error("the fake model recorded no request");
  return {
    toModel: request.at - sent,
    fromModel: firstText - request.firstChunkAt,
    toText: firstText - sent,
    ours: firstText - sent - (request.firstChunkAt - request.at),
    // The fake's read and JSON.parse of the body (in this process) counted as the model's, as a real model's would be.
    oursArrived: firstText - sent - (request.firstChunkAt - (request.arrivedAt ?? request.at)),
    sentAt: sent,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

/**
 * One turn of this tree's (direct) on one clock: workerd's syscalls, and this process's on the
 * model's and the chat's sockets, from the send to the first `text` frame (bench/lib/syscall-timeline.ts).
 */
async function syscalls(client: SessionClient, pids: number[], fakeUrl: string, direct: string): Promise<void> {
  const trace = await traceSyscalls(pids, { [Number(new URL(fakeUrl).port)]: "model", [Number(new URL(direct).port)]: "chat socket" });
  // perf attaches within a second; a turn first, so the traced one is fully covered.
  await turn(client, fakeUrl, "before the traced turn");
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const r = await turn(client, fakeUrl, "the traced turn", trace.mark);
  const lines = await trace.stop(r.toText + 2);
  console.log(
    `\nthe traced turn: send -> model request ${r.toModel.toFixed(1)} ms, -> first text frame ${r.toText.toFixed(1)} ms; syscalls (perf trace, ms after the send; an fsync of a WAL is a commit):`,
  );
  for (const line of lines) console.log(`  ${line}`);
}

const fixture = new OneToolTurnFixture();

async function main(): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  console.log(`bench first-token  load ${load()}  (2 cores)`);
  const { tmp, rootPath, fake, bridge } = await fixture.start("bench-first-token-", KEY);
  // Auto mode (the fixture's tool call) off: each turn scripts a text-only answer, and requests are recorded.
  await fetch(`${fake.url}/__auto/${KEY}`, { method: "POST", body: "null" });
  const dirs = [repoRoot, BASE];
  const observations: string[] = [];
  const targets: { name: string; client: SessionClient; row: Row; pids: number[]; url: string }[] = [];
  for (const dir of dirs) {
    log(`starting ${dir}`);
    const worker = await startWorker({
      dir,
      root: rootPath,
      fakeUrl: fake.url,
      apiKey: KEY,
      bridge,
      stateParent: tmp,
      cleanupDirs: [],
      groups: fixture.groups,
      observations,
      vars: dir === repoRoot && cli.budget ? { DAILY_TOKEN_BUDGET: cli.budget } : undefined,
    });
    const label = dir === repoRoot ? (cli.budget ? `this tree, budget ${cli.budget}` : "this tree") : dir;
    for (const [via, url] of [
      ["proxy", worker.url],
      ["direct", worker.direct],
    ] as const) {
      if (!url) continue;
      const client = await openSession(url, `first-token-${via}-${Date.now()}`, { timeoutMs: 15_000 });
      const pids = descendantsOf(worker.group.pid).filter((pid) => readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd");
      targets.push({ name: `${label} (${via})`, client, row: { toModel: [], fromModel: [], toText: [], ours: [], oursArrived: [] }, pids, url });
    }
  }
  for (const t of targets) for (let i = 0; i < WARMUP; i++) await turn(t.client, fake.url, `warm-up ${i}`);
  for (let i = 0; i < TURNS; i++) {
    for (const t of targets) {
      const r = await turn(t.client, fake.url, `question ${i}`);
      t.row.toModel.push(r.toModel);
      t.row.fromModel.push(r.fromModel);
      t.row.toText.push(r.toText);
      t.row.ours.push(r.ours);
      t.row.oursArrived.push(r.oursArrived);
    }
  }
  console.log(`\nmedian of ${TURNS} text-only turns each, alternating (ms; the fake model's first chunk after ${MODEL_MS} ms)\n`);
  console.log(
    "| Worker | send -> model request | model's first chunk -> text frame | send -> text frame | ours (send -> text frame - model's own) | ours, model's own from its request's arrival |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const t of targets)
    console.log(
      `| ${t.name} | ${median(t.row.toModel).toFixed(1)} | ${median(t.row.fromModel).toFixed(1)} | ${median(t.row.toText).toFixed(1)} | ${median(t.row.ours).toFixed(1)} | ${median(t.row.oursArrived).toFixed(1)} |`,
    );
  const traced = targets.find((t) => t.name === "this tree (direct)");
  if (cli.syscalls && traced) await syscalls(traced.client, traced.pids, fake.url, traced.url);
  console.log(`\nload after: ${load()}`);
  for (const note of observations) console.log(`note: ${note}`);
  for (const t of targets) void t.client.close();
}

try {
  await main();
} catch (error) {
  console.error(`first-token: failed: ${errorText(error)}`);
  process.exitCode = 1;
} finally {
  await fixture.stop();
}
