// `npm run bench:push`: how soon a person away from their chat hears that a tool call waits
// for them (issue 39, design §12). One `wrangler dev` with VAPID keys, the test push service
// (tests/fixtures/push-service.ts: verifies the VAPID JWT and decrypts every request, as a
// real push service would take it) and one device in the person's account.
//   approval → push: a Node socket on the chat says it is hidden (`visibility`), the model asks
//     for a tool that needs approval; the time from the `approval_request` frame arriving at
//     that socket to the push service receiving the push for it (same process clock). Goal
//     p50 ≤ 50 ms. The first push of the run (the isolate's cold key import) is printed apart.
//   baseline, same run: POST /api/push/devices/{id}/test sent → the push service receiving it
//     (the account's encrypt-and-send alone, without the session's part).
// Each approval is denied right after its push arrived, so every sample is a fresh turn. The
// stack's PUSH_PER_HOUR is raised to its maximum: the default 30 an hour would drop push 31.
//
//   npm run bench:push [-- --n 40]
import "../tests/fixtures/push-tls/trust";
import { loadavg } from "node:os";
import { reply, script } from "../tests/fixtures/fake-llm-script";
import { newPushDevice, pushesTo, startPushService, vapidVars } from "../tests/fixtures/push-service";
import type { Message } from "../tests/fixtures/session-client";
import { openSession } from "../tests/fixtures/session-client-node";
import { startStack } from "../tests/fixtures/stack";

const N = Math.max(30, Number(process.argv[process.argv.indexOf("--n") + 1]) || 40);
const WARMUP = 3;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const row = (name: string, values: number[]) =>
  `| ${name} | ${values.length} | ${percentile(values, 50).toFixed(1)} | ${percentile(values, 90).toFixed(1)} | ${Math.max(...values).toFixed(1)} |`;

async function main(): Promise<void> {
  const began = Date.now();
  const loadBefore = loadavg()[0]?.toFixed(2);
  const push = await startPushService();
  const stack = await startStack({
    vars: { ...vapidVars(), PUSH_SERVICE_HOSTS: "localhost,127.0.0.1", RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000", PUSH_PER_HOUR: "1000" },
  });
  try {
    const device = await newPushDevice(push);
    const added = await fetch(`${stack.url}/api/push/devices`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ subscription: { endpoint: device.endpoint, keys: device.keys }, label: "bench" }),
    });
    if (added.status !== 201) throw new Error(`adding the device: ${added.status} ${await added.text()}`);
    const { id } = (await added.json()) as { id: string };
    let received = 0;

    /** The next push to the device, after `received` so far. */
    const nextPush = async () => {
      const all = await pushesTo(push, device, received + 1);
      const latest = all[received];
      if (!latest?.verified) throw new Error(`push ${received + 1}: ${latest ? latest.problem : "none within 10 s"}`);
      received = all.length;
      return latest;
    };

    // Approval → push.
    const chat = await openSession(stack.url, crypto.randomUUID());
    const arrivals = new Map<string, number>();
    chat.observe({ frame: (_text, _binary, m) => void (m?.type === "approval_request" && arrivals.set(m.callId, Date.now())) });
    chat.send({ type: "visibility", visible: false });
    const pending: number[] = [];
    let cold = Number.NaN;
    for (let i = 0; i < WARMUP + N; i++) {
      await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__get_file_info", { path: `${stack.fsRoot}/notes.txt` }), reply.text("ok")]);
      const from = chat.received.length;
      chat.say(`how big is notes.txt (${i})`);
      const asked = (await chat.next((m) => m.type === "approval_request", from, 30_000)) as Message<"approval_request">;
      const pushed = await nextPush();
      const payload = JSON.parse(pushed.plaintext ?? "{}") as { kind?: string; ref?: string };
      if (payload.kind !== "approval" || payload.ref !== asked.callId) throw new Error(`push ${i} is not for ${asked.callId}: ${pushed.plaintext}`);
      const ms = pushed.at - (arrivals.get(asked.callId) ?? Number.NaN);
      if (i === 0) cold = ms;
      else if (i >= WARMUP) pending.push(ms);
      chat.send({ type: "approval", callId: asked.callId, approved: false });
      await chat.turnEnd(from, 30_000);
    }
    await chat.close();

    // Baseline: the account's push alone.
    const direct: number[] = [];
    for (let i = 0; i < WARMUP + N; i++) {
      const sent = Date.now();
      const answer = await fetch(`${stack.url}/api/push/devices/${id}/test`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      if (!answer.ok) throw new Error(`test push: ${answer.status} ${await answer.text()}`);
      const pushed = await nextPush();
      if (i >= WARMUP) direct.push(pushed.at - sent);
    }

    console.log(
      `\n## Push latency (one device; wrangler dev + test push service over https on loopback; node ${process.version}; ${((Date.now() - began) / 1000).toFixed(0)} s; load avg ${loadBefore} → ${loadavg()[0]?.toFixed(2)})\n`,
    );
    console.log("| path | n | p50 ms | p90 ms | max ms |");
    console.log("|---|---|---|---|---|");
    console.log(row("approval_request frame at the socket → push received", pending));
    console.log(row("baseline: POST …/test sent → push received", direct));
    console.log(`\nFirst push of the run (cold key import in the isolate): ${cold.toFixed(1)} ms. Goal: approval → push p50 ≤ 50 ms.`);
  } finally {
    await stack.stop();
    await push.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
