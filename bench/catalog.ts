// What resources and prompts cost a chat, through the real Worker (`wrangler dev`),
// the bridge running server-everything over stdio and the fake Gemini: the catalog
// routes (`GET /sessions/{id}/resources`, `/prompts`), one completion
// (`POST /sessions/{id}/complete`), and a turn with two attached resources or a
// prompt against a plain turn (`message` sent → `turn_end`). 10 warm-up rounds,
// then 50 of each, p50/p95 in ms. Run: npm run bench:catalog
import { reply, script } from "../tests/fixtures/fake-llm-script";
import { everythingBin } from "../tests/fixtures/servers";
import { openSession } from "../tests/fixtures/session-client-node";
import type { Message, SessionClient } from "../tests/fixtures/session-client";
import { startStack } from "../tests/fixtures/stack";

const ROUNDS = 50;
const WARMUP = 10;

// env.ts's maxima: the limiter must not be what is measured.
const stack = await startStack({
  mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"] } },
  vars: { RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000" },
});
try {
  const id = ((await (await fetch(`${stack.url}/sessions`, { method: "POST" })).json()) as { id: string }).id;
  const socket = await openSession(stack.url, id);
  await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && s.state === "ready"));
  const base = `${stack.url}/sessions/${id}`;
  const complete = { server: "everything", ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "S" } };
  const attachments = [
    { server: "everything", uri: "demo://resource/static/document/features.md" },
    { server: "everything", uri: "demo://resource/dynamic/blob/1" },
  ];
  const turn = async (frame: Record<string, unknown>) => {
    await script(stack.llm.url, stack.llmKey, [reply.text("ok")]);
    const from = socket.received.length;
    socket.send(frame);
    const end = await socket.next((m): m is Message<"turn_end"> => m.type === "turn_end", from);
    if (end.reason !== "complete") throw new Error(`turn ended ${end.reason}`);
    // Each turn sends the history again: start over so every round sends the same.
    socket.send({ type: "reset" });
    await socket.next((m) => m.type === "history", from);
  };
  const cases: [string, () => Promise<unknown>][] = [
    ["GET /sessions/{id}/resources", () => fetch(`${base}/resources`).then((r) => r.json())],
    ["GET /sessions/{id}/prompts", () => fetch(`${base}/prompts`).then((r) => r.json())],
    [
      "POST /sessions/{id}/complete",
      () =>
        fetch(`${base}/complete`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(complete) }).then((r) => r.json()),
    ],
    ["turn: plain message", () => turn({ type: "message", text: "hello" })],
    ["turn: message + 2 attached resources", () => turn({ type: "message", text: "hello", attachments })],
    ["turn: /args-prompt city=Lyon", () => turn({ type: "prompt", server: "everything", name: "args-prompt", arguments: { city: "Lyon" } })],
  ];
  console.log("| what | p50 ms | p95 ms |\n|---|---|---|");
  for (const [name, run] of cases) {
    const times: number[] = [];
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      const started = performance.now();
      await run();
      if (i >= WARMUP) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1);
    console.log(`| ${name} | ${at(0.5)} | ${at(0.95)} |`);
  }
  await (socket as SessionClient).close();
} finally {
  await stack.stop();
}
