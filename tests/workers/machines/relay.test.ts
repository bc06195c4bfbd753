// A paired machine's socket in the user's account object, in real workerd: accepted with
// the hibernation API and tagged with the machine's id, its heartbeat answered by the
// runtime itself (no JavaScript runs, so an idle machine costs the object no wall time:
// it may hibernate with the socket open), and a revoked machine's socket closed at once.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { WORKER_ORIGIN, workerFetch } from "../worker-fetch";

const json = { "content-type": "application/json" };

async function pairedCredential(name: string): Promise<{ credential: string; machineId: string }> {
  const started = (await (
    await SELF.fetch(`${WORKER_ORIGIN}/api/machines/pair`, { method: "POST", headers: json, body: JSON.stringify({ name }) })
  ).json()) as { code: string; pollToken: string };
  const approved = await workerFetch("/api/machines/approve", { method: "POST", headers: json, body: JSON.stringify({ code: started.code }) });
  const { machine } = (await approved.json()) as { machine: { id: string } };
  const polled = (await (
    await SELF.fetch(`${WORKER_ORIGIN}/api/machines/pair/poll`, { method: "POST", headers: json, body: JSON.stringify(started) })
  ).json()) as { credential: string };
  return { credential: polled.credential, machineId: machine.id };
}

async function connect(credential: string, servers = "everything"): Promise<WebSocket> {
  const response = await SELF.fetch(`${WORKER_ORIGIN}/machines/connect`, {
    headers: { upgrade: "websocket", authorization: `Bearer ${credential}`, "x-edgehost-servers": servers },
  });
  const ws = response.webSocket;
  if (!ws) throw new Error(`no WebSocket: ${response.status} ${await response.text()}`);
  ws.accept();
  return ws;
}

const next = (ws: WebSocket) => new Promise<string>((resolve) => ws.addEventListener("message", (event) => resolve(String(event.data)), { once: true }));

describe("a paired machine's socket", () => {
  it("is a hibernatable socket whose heartbeat the runtime answers without running the object", async () => {
    const { credential, machineId } = await pairedCredential("idle");
    const ws = await connect(credential);
    const pong = next(ws);
    ws.send("ping");
    expect(await pong).toBe("pong");
    const seen = await runInDurableObject(userAccount(env as unknown as Env, "token:alice"), (_instance, state) => {
      const sockets = state.getWebSockets(machineId);
      return { sockets: sockets.length, autoResponse: sockets[0] ? state.getWebSocketAutoResponseTimestamp(sockets[0]) : null };
    });
    // Accepted through ctx.acceptWebSocket under the machine's tag, and the pong came from the runtime's auto-response.
    expect(seen.sockets).toBe(1);
    expect(seen.autoResponse).toBeInstanceOf(Date);
    const listed = (await (await workerFetch("/api/machines")).json()) as { machines: { id: string; online: boolean; servers: string[] }[] };
    expect(listed.machines.find((m) => m.id === machineId)).toMatchObject({ online: true, servers: ["everything"] });
    ws.close(1000, "done");
  });

  it("closes at once when its machine is removed, and the credential no longer connects", async () => {
    const { credential, machineId } = await pairedCredential("gone");
    const ws = await connect(credential);
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (event) => resolve(event.code)));
    expect((await workerFetch(`/api/machines/${machineId}`, { method: "DELETE" })).status).toBe(204);
    expect(await closed).toBe(4001);
    const again = await SELF.fetch(`${WORKER_ORIGIN}/machines/connect`, { headers: { upgrade: "websocket", authorization: `Bearer ${credential}` } });
    expect(again.status).toBe(401);
    // Bob cannot remove or see alice's machines.
    const { machineId: other } = await pairedCredential("alices");
    expect((await workerFetch(`/api/machines/${other}`, { method: "DELETE" }, "bob")).status).toBe(404);
    expect(((await (await workerFetch("/api/machines", {}, "bob")).json()) as { machines: unknown[] }).machines).toEqual([]);
  });
});
