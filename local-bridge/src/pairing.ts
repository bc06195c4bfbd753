// Pairing this machine with a signed-in user of an edgehost deployment: ask the Worker
// for a code, show it, wait while the user approves it on the page, and keep the device
// credential it hands out in a file only this user can read (mode 0600, beside mcp.json).
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";

export const DEVICE_FILE = ".edgehost-device.json";
const POLL_MS = 1500;

const DeviceSchema = z.object({ url: z.string(), credential: z.string().min(20), name: z.string(), user: z.string().optional() });
export type Device = z.infer<typeof DeviceSchema>;

const StartSchema = z.object({ code: z.string(), pollToken: z.string(), name: z.string(), expiresInMs: z.number() });
const PollSchema = z.union([
  z.object({ state: z.literal("pending") }),
  z.object({ state: z.literal("approved"), credential: z.string(), name: z.string(), user: z.string().optional() }),
]);

export class PairingError extends Error {}

/** The credential kept for `origin`, if this machine was paired with it. */
export function readDevice(path: string, origin: string): Device | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const device = DeviceSchema.parse(JSON.parse(readFileSync(path, "utf8")));
    return device.url === origin ? device : undefined;
  } catch {
    return undefined;
  }
}

export function forgetDevice(path: string): void {
  rmSync(path, { force: true });
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json().catch(() => undefined) };
}

function errorOf(json: unknown): string {
  const parsed = z.object({ error: z.object({ message: z.string() }) }).safeParse(json);
  return parsed.success ? parsed.data.error.message : "unexpected answer";
}

/**
 * Pairs with the deployment at `origin`; `say` prints to the terminal. Resolves with the
 * device once a user approved the code, and writes it to `path` (0600).
 */
export async function pair(origin: string, path: string, say: (line: string) => void, name = hostname()): Promise<Device> {
  const started = await post(`${origin}/api/machines/pair`, { name });
  if (started.status !== 201) throw new PairingError(`the deployment refused to pair (${started.status}): ${errorOf(started.json)}`);
  const { code, pollToken, expiresInMs, name: asked } = StartSchema.parse(started.json);
  say(`To pair this machine ("${asked}") with your account, open ${origin}/#pair=${code}`);
  say(`and approve the code ${code} there (it expires in ${Math.round(expiresInMs / 60_000)} minutes).`);
  say("Approve only a code you started yourself: whoever approves it gets this machine's servers in their chats.");
  const deadline = Date.now() + expiresInMs;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const polled = await post(`${origin}/api/machines/pair/poll`, { code, pollToken });
    if (polled.status === 404) throw new PairingError("the code expired or was used: run `mcp-local-bridge connect` again");
    if (polled.status !== 200) continue;
    const answer = PollSchema.parse(polled.json);
    if (answer.state === "pending") continue;
    const device: Device = { url: origin, credential: answer.credential, name: answer.name, ...(answer.user ? { user: answer.user } : {}) };
    writeFileSync(path, `${JSON.stringify(device, null, 2)}\n`, { mode: 0o600 });
    return device;
  }
  throw new PairingError("nobody approved the code in time: run `mcp-local-bridge connect` again");
}
