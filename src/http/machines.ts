// Pairing a developer's machine and the machines a user has (src/machines/):
//
// POST /api/machines/pair {name?} → 201 {code, pollToken, name, expiresInMs}: a bridge running
//   `mcp-local-bridge connect URL` starts a pairing; no identity (it has none yet), so
//   starts are capped in flight per address and for the deployment (429 rate_limited).
// POST /api/machines/pair/poll {code, pollToken} → {state}: the bridge waits for the
//   approval; once approved it gets its device credential, once.
// GET /api/machines/pair/{code} → {name, expiresAt}: the page shows what it approves.
// POST /api/machines/approve {code} → 201 {machine: {id, name}}: the signed-in user approves a code read
//   off their own terminal. Look-ups and approvals share one throttle: a wrong code counts as
//   a failed guess per address and per person (src/identity/pairing-throttle.ts).
// GET /api/machines → {machines}; DELETE /api/machines/{id}: revoke, effective at once.
// GET /machines/connect (WebSocket, Authorization: Bearer <device credential>): the
//   bridge's one socket, held by the user's UserAccount (src/machines/relay.ts).
import { Hono } from "hono";
import { z } from "zod";
import type { Env } from "../config/env";
import type { AppEnv } from "../identity/identify";
import { admitPairingStart, throttledPairingAttempt } from "../identity/pairing-throttle";
import { machineName, mintCredential, newPairingCode, normalCode, parseCredential, randomToken, sha256 } from "../machines/credentials";
import { PAIRING_TTL_MS, type PairingCode } from "../machines/PairingCode";
import { runtimeConfig } from "../config/runtime-config";
import { sameOrigin } from "../identity/same-origin";
import { userAccount } from "../users/account";
import { parsed } from "./request-body";
import { RequestError } from "../shared/errors";

export const machines = new Hono<AppEnv>();
/** Routes a bridge reaches without a user identity: mounted before the identify middleware. */
export const machineBridgeRoutes = new Hono<AppEnv>();
// Still no cross-site POSTs and JSON bodies only; a bridge sends no Origin.
machineBridgeRoutes.use("/api/*", sameOrigin());

const CODE = z
  .string()
  .max(16)
  .transform((code, ctx) => {
    const normal = normalCode(code);
    if (normal) return normal;
    ctx.addIssue({ code: "custom", message: "not a pairing code (8 letters and digits, e.g. K7QM-2XPD)" });
    return z.NEVER;
  });
const PairSchema = z.object({ name: z.string().max(64).optional() });
const PollSchema = z.object({ code: CODE, pollToken: z.string().min(20).max(100) });
const ApproveSchema = z.object({ code: CODE });

function pairing(env: Env, code: string): DurableObjectStub<PairingCode> {
  const namespace = env.PAIRING_CODE as unknown as DurableObjectNamespace<PairingCode>;
  return namespace.get(namespace.idFromName(code));
}

const unknownCode = () =>
  new RequestError(
    "pairing_unknown",
    "no pairing with that code is waiting (it expired after 10 minutes, was used, or was mistyped): run `mcp-local-bridge connect` again",
  );

machineBridgeRoutes.post("/api/machines/pair", parsed("json", PairSchema, "the request body is invalid"), async (c) => {
  const name = machineName(c.req.valid("json").name);
  // Counted before any object is made: each pairing is one, with storage and an alarm, for its ten minutes.
  await admitPairingStart(c.env, c.req.raw.headers, runtimeConfig(c.env).settings, PAIRING_TTL_MS);
  const pollToken = randomToken();
  const pollHash = await sha256(pollToken);
  // A live pairing may hold a drawn code (one in 8.5e11): draw again.
  for (let tries = 0; tries < 5; tries++) {
    const code = newPairingCode();
    if (await pairing(c.env, code).create(name, pollHash)) return c.json({ code, pollToken, name, expiresInMs: PAIRING_TTL_MS }, 201);
  }
  throw new RequestError("pairing_failed", "could not draw a free pairing code: try again");
});

machineBridgeRoutes.post("/api/machines/pair/poll", parsed("json", PollSchema, "the request body is invalid"), async (c) => {
  const { code, pollToken } = c.req.valid("json");
  const outcome = await pairing(c.env, code).poll(await sha256(pollToken));
  if (outcome.state === "unknown") throw unknownCode();
  return c.json(outcome);
});

machineBridgeRoutes.get("/machines/connect", async (c) => {
  const credential = parseCredential(/^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1]);
  if (!credential)
    throw new RequestError("bad_device_credential", "connect with Authorization: Bearer <device credential> (pair with `mcp-local-bridge connect URL`)");
  const url = new URL("https://account/machines/connect");
  url.searchParams.set("user", credential.userId);
  // The account checks the credential's secret against the digest it stored; a forged user part finds none.
  return userAccount(c.env, credential.userId).fetch(new Request(url, { headers: c.req.raw.headers }));
});

// The right code shows the machine's name before approval: the person approving must see
// what they approve, and the code is the secret (read off their own terminal), so whoever
// holds it may see the name. What must not work is finding codes by guessing: a look-up of a
// code that names no waiting pairing counts as a wrong guess, as an approval's does.
machines.get("/pair/:code", async (c) => {
  const code = normalCode(c.req.param("code"));
  // Not a code's shape at all: nothing to look up, nothing learnt, not counted.
  if (!code) throw unknownCode();
  const pending = await throttledPairingAttempt(c.env, c.req.raw.headers, c.var.identity.id, () => pairing(c.env, code).describe());
  if (!pending) throw unknownCode();
  return c.json(pending);
});

machines.post("/approve", parsed("json", ApproveSchema, "the request body is invalid"), async (c) => {
  const { code } = c.req.valid("json");
  const identity = c.var.identity;
  // A code that names no waiting pairing is a failed guess, counted per address and per person.
  const claimed = await throttledPairingAttempt(c.env, c.req.raw.headers, identity.id, async () => {
    const outcome = await pairing(c.env, code).claim(identity.id, identity.name);
    return outcome.ok ? outcome : undefined;
  });
  if (!claimed) throw unknownCode();
  const credential = mintCredential(identity.id);
  const machine = await userAccount(c.env, identity.id).addMachine(credential.machineId, claimed.name, await sha256(credential.secret));
  if (!machine) throw new RequestError("too_many_machines", "you have paired the most machines allowed (20): remove one first");
  await pairing(c.env, code).deliver(credential.text, machine.name);
  return c.json({ machine: { id: machine.id, name: machine.name } }, 201);
});

machines.get("/", async (c) => c.json({ machines: await userAccount(c.env, c.var.identity.id).listMachines() }));

machines.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!/^[0-9a-f]{12}$/.test(id) || !(await userAccount(c.env, c.var.identity.id).revokeMachine(id))) {
    throw new RequestError("not_found", `you have no machine "${id}"`);
  }
  return c.body(null, 204);
});
