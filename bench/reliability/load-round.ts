// One round of bench/reliability/load.ts: N fresh chat sessions opened at once over
// WebSocket, each running M one-tool-call turns in sequence, all under one deadline.
// A turn counts as an error when bench/lib/timed-session.ts says so (an `error` frame, a
// tool error, an "unavailable" notice, turn_end ≠ complete, the socket closed, no
// turn_end in time); a session that cannot open counts one error and its turns as
// not run; an `error` frame outside any turn, or no pong after a session's last
// turn (its socket died), counts as an error too. Turns not yet
// started at the deadline are "not run"; a turn in flight at the deadline ends as a
// timeout error. Samples are taken every SAMPLE_MS during the round; all sockets are
// closed at the end, then SETTLE_MS of samples (every SAMPLE_MS) are the "settle"
// window; the last of them is `after` (the report takes memory as the window's
// minimum, so a GC that happens to run late does not look like growth).
import { errorText, sleep } from "../lib/procs";
import { TimedSession } from "../lib/timed-session";
import type { Sample } from "./load-sample";

const SAMPLE_MS = 2_000;
const SETTLE_MS = 10_000;
const OPEN_TIMEOUT_MS = 30_000;
const SERVERS_TIMEOUT_MS = 30_000;

export interface RoundOptions {
  index: number;
  url: string;
  sessions: number;
  turns: number;
  roundMs: number;
  turnTimeoutMs: number;
  sample: () => Promise<Sample>;
  log: (text: string) => void;
  /** Every client opened, so the caller can close them on SIGINT. */
  clients: Set<TimedSession>;
}

export interface RoundResult {
  index: number;
  planned: number;
  completed: number;
  errors: number;
  notRun: number;
  reasons: Map<string, number>;
  ms: number[];
  wallMs: number;
  openMs: number;
  deadlineHit: boolean;
  before: Sample;
  during: Sample[];
  settle: Sample[];
  after: Sample;
  notes: string[];
}

export async function runRound(o: RoundOptions): Promise<RoundResult> {
  const before = await o.sample();
  const r: RoundResult = {
    index: o.index,
    planned: o.sessions * o.turns,
    completed: 0,
    errors: 0,
    notRun: 0,
    reasons: new Map(),
    ms: [],
    wallMs: 0,
    openMs: 0,
    deadlineHit: false,
    before,
    during: [],
    settle: [],
    after: before,
    notes: [],
  };
  const fail = (why: string) => {
    r.errors++;
    const reason = why.replace(/\d+/g, "N").slice(0, 140);
    r.reasons.set(reason, (r.reasons.get(reason) ?? 0) + 1);
  };
  const t0 = performance.now();
  const left = () => t0 + o.roundMs - performance.now();
  const mine: TimedSession[] = [];
  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    void o
      .sample()
      .then((s) => void r.during.push(s))
      .finally(() => (sampling = false));
  }, SAMPLE_MS);
  let lastProgress = performance.now();
  const progress = () => {
    if (performance.now() - lastProgress < 10_000) return;
    lastProgress = performance.now();
    const s = r.during.at(-1);
    const mem = s
      ? `, workerd ${s.workerdMb.toFixed(0)} MB, bridge ${s.bridgeMb.toFixed(0)} MB, bridge children ${s.children.length}, bridge sessions ${s.bridgeSessions ?? "?"}`
      : "";
    o.log(`  round ${o.index}: ${((performance.now() - t0) / 1000).toFixed(0)} s, ${r.completed}/${r.planned} turns, ${r.errors} errors${mem}`);
  };
  const stamp = `${Date.now().toString(36)}-r${o.index}`;
  let opened = 0;

  const runSession = async (i: number): Promise<void> => {
    let client: TimedSession;
    try {
      client = await TimedSession.open(o.url, `load-${stamp}-${i}`, Math.max(1, Math.min(OPEN_TIMEOUT_MS, left())));
    } catch (error) {
      fail(`open failed: ${errorText(error)}`);
      r.notRun += o.turns;
      return;
    }
    mine.push(client);
    o.clients.add(client);
    if (++opened === o.sessions) r.openMs = performance.now() - t0;
    if (!(await client.waitForServers(Math.max(1, Math.min(SERVERS_TIMEOUT_MS, left())))))
      r.notes.push(`session ${i}: servers not ready in time; turns started anyway`);
    for (let k = 0; k < o.turns; k++) {
      if (left() <= 0) {
        r.notRun += o.turns - k;
        r.deadlineHit = true;
        return;
      }
      const result = await client.turn(`load round ${o.index}, session ${i}: list the files (${k + 1})`, Math.max(1, Math.min(o.turnTimeoutMs, left())));
      if (result.error === undefined) {
        r.completed++;
        r.ms.push(result.ms);
      } else {
        if (left() <= 0) r.deadlineHit = true;
        fail(result.error);
      }
      progress();
    }
    // A socket that died after its last turn would go unnoticed otherwise.
    if (left() > 1_000) await client.ping(Math.min(5_000, left())).catch((error: unknown) => fail(`no pong after the last turn: ${errorText(error)}`));
  };

  try {
    await Promise.all(Array.from({ length: o.sessions }, (_, i) => runSession(i)));
  } finally {
    r.wallMs = performance.now() - t0;
    clearInterval(sampler);
  }
  const strays = mine.flatMap((c) => c.strays);
  for (const stray of strays) fail(`error frame outside a turn: ${stray}`);
  for (const c of mine) {
    c.close();
    o.clients.delete(c);
  }
  for (let t = 0; t < SETTLE_MS; t += SAMPLE_MS) {
    await sleep(SAMPLE_MS);
    r.settle.push(await o.sample());
  }
  r.after = r.settle.at(-1) ?? r.after;
  return r;
}
