// A task whose result arrives after the page closed (issue 34, third Speed figure): the
// time from the server's completion to the model's answer, and what the session's
// Durable Object costs while it waits. The real Worker under `wrangler dev` (the stack
// fixture), a real bridge in front of tests/fixtures/task-server.mjs reached by URL (so
// the session speaks MCP 2026 with the Tasks extension), a counting proxy in front of the
// bridge, and the fake Gemini in this process (its arrival times share this clock).
// For each of RUNS sessions: the model calls slow_compute, the page sees the task working
// and closes, the task runs HOLD_MS, then `release` (another MCP client) completes it;
// measured: release answered → the model's next request (the answer's start). Each poll
// (an alarm wake, or the wake's timer for one due within 2 s) is one tasks/get at the
// bridge, counted by the proxy. Baseline from the same run: a
// plain call (greet, no task): its answer at the proxy → the model's next request.
// Run: npx tsx bench/tasks.ts
import { join } from "node:path";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connectClient, startBridge } from "../tests/fixtures/bridge";
import { modelTimes, reply, script } from "../tests/fixtures/fake-llm-script";
import { repoRoot } from "../tests/fixtures/servers";
import { startStack } from "../tests/fixtures/stack";
import { openSession } from "../tests/fixtures/session-client-node";
import { sleep } from "./lib/procs";

const RUNS = 5;
const HOLD_MS = 10_000;

/** JSON-RPC methods the bridge was sent, and when each answer to a tools/call of `greet` ended. */
const methods: string[] = [];
const greetAnswered: number[] = [];

async function countingProxy(target: string): Promise<string> {
  const to = new URL(target);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let method = "";
      try {
        const parsed = JSON.parse(body.toString("utf8")) as { method?: string; params?: { name?: string } };
        method = parsed.method === "tools/call" ? `tools/call ${parsed.params?.name}` : (parsed.method ?? "");
      } catch {
        // not JSON (a GET or DELETE)
      }
      if (method) methods.push(method);
      const out = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("end", () => {
          if (method === "tools/call greet") greetAnswered.push(performance.now());
        });
      });
      out.on("error", () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;
const count = (name: string) => methods.filter((m) => m === name).length;

async function main(): Promise<void> {
  const bridge = await startBridge({ tasks: { command: process.execPath, args: [join(repoRoot, "tests", "fixtures", "task-server.mjs")] } }, ["--no-watch"]);
  const proxy = await countingProxy(bridge.url);
  const tasks = { url: `${proxy}/servers/tasks/mcp`, headers: { Authorization: `Bearer ${bridge.token}` }, alwaysAllow: ["slow_compute", "greet"] };
  const stack = await startStack({ mcpServers: { tasks } });
  const { client: releaser } = await connectClient(bridge, "tasks");
  const key = stack.llmKey;
  const answers = async () => (await modelTimes(stack.llm.url, key)).length;
  const nextAnswerAt = async (after: number) => {
    for (;;) {
      const times = await modelTimes(stack.llm.url, key);
      if (times.length > after) return times[after]?.at ?? Number.NaN;
      await sleep(5);
    }
  };
  const taskMs: number[] = [];
  const plainMs: number[] = [];
  const wakes: number[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      // Baseline: a plain call, answered at once.
      await script(stack.llm.url, key, [reply.callReply("tasks__greet", { name: `b${run}` }), reply.text("hello")]);
      const plain = await openSession(stack.url, crypto.randomUUID());
      let before = await answers();
      plain.send({ type: "message", text: "greet" });
      const plainAt = await nextAnswerAt(before + 1);
      plainMs.push(plainAt - (greetAnswered.at(-1) ?? Number.NaN));
      await plain.turnEnd(0, 30_000);
      plain.close();

      // A task; the page closes while it runs.
      const label = `bench-${run}`;
      await script(stack.llm.url, key, [reply.callReply("tasks__slow_compute", { label }), reply.text("finished")]);
      const page = await openSession(stack.url, crypto.randomUUID());
      before = await answers();
      page.send({ type: "message", text: "compute" });
      await page.next((m) => m.type === "task" && m.status === "working", 0, 30_000);
      page.close();
      const polledBefore = count("tasks/get");
      await sleep(HOLD_MS);
      wakes.push(count("tasks/get") - polledBefore);
      await releaser.callTool({ name: "release", arguments: { label } });
      const released = performance.now();
      const answeredAt = await nextAnswerAt(before + 1);
      taskMs.push(answeredAt - released);
    }
  } finally {
    await releaser.close().catch(() => undefined);
    await stack.stop();
    await bridge.stop();
  }
  const perMinute = wakes.map((w) => (w * 60_000) / HOLD_MS);
  console.log(`runs: ${RUNS}, each task held ${HOLD_MS / 1000} s with the page closed`);
  console.log(
    `server completion -> model's answer: p50 ${p50(taskMs).toFixed(0)} ms, max ${Math.max(...taskMs).toFixed(0)} ms (${taskMs.map((x) => x.toFixed(0)).join(", ")})`,
  );
  console.log(`baseline, a plain call's answer -> model's answer: p50 ${p50(plainMs).toFixed(1)} ms (same run)`);
  console.log(`while waiting: ${p50(perMinute).toFixed(0)} polls a minute (one tasks/get each; ${wakes.join(", ")} in ${HOLD_MS / 1000} s)`);
  // A poll due within 2 s runs on a timer of the wake (task-alarm.ts TaskWake); the alarm stays set behind it.
  console.log("rows written per poll: 1 session_tasks UPDATE; an agents schedule row when the next whole-second alarm moves (agents deletes the fired one)");
}

await main();
// The counting proxy and the fake model's sockets are never closed: without this the run printed its figures and then hung.
process.exit(0);
