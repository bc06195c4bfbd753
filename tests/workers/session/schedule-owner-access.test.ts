// Whether a schedule's owner may still run it (src/session/schedules/owner-access.ts), in
// workerd against the real operations object's users table (what /api/me feeds): behind
// Access, seen within SCHEDULE_OWNER_SEEN_DAYS → yes, longer ago or never → no, the object
// unreachable → unknown (nothing removed); tokens: the owner's name among them; no sign-in: yes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readAuthConfig } from "../../../src/config/auth";
import type { Env } from "../../../src/config/env";
import { operations } from "../../../src/ops/operations-object";
import { ownerAccess } from "../../../src/session/schedules/owner-access";

const DAY = 86_400_000;
const ops = operations(env as unknown as Env);
const access = readAuthConfig({ AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: "team", ACCESS_AUD: "aud" });
const lastSeen = (id: string) => ops.lastSeen(id);

describe("owner access for scheduled runs", () => {
  it("behind Access: yes when seen within the days, no when seen before them or never, unknown when the users table cannot be read", async () => {
    const now = Date.now();
    const recent = `access:${crypto.randomUUID()}`;
    const stale = `access:${crypto.randomUUID()}`;
    await ops.userSeen(recent, "recent@example.com", now - 29 * DAY);
    await ops.userSeen(stale, "stale@example.com", now - 31 * DAY);
    expect(await ownerAccess({ auth: access, owner: recent, lastSeen, seenDays: 30, now })).toEqual({ may: "yes" });
    expect(await ownerAccess({ auth: access, owner: stale, lastSeen, seenDays: 30, now })).toEqual({
      may: "no",
      why: "its owner has not opened edgehost for 30 days",
    });
    expect(await ownerAccess({ auth: access, owner: `access:${crypto.randomUUID()}`, lastSeen, seenDays: 30, now })).toMatchObject({ may: "no" });
    // A longer setting keeps the stale one.
    expect(await ownerAccess({ auth: access, owner: stale, lastSeen, seenDays: 60, now })).toEqual({ may: "yes" });
    const unreachable = async (): Promise<number | undefined> => {
      throw new Error("operations object unreachable");
    };
    expect(await ownerAccess({ auth: access, owner: recent, lastSeen: unreachable, seenDays: 30, now })).toEqual({ may: "unknown" });
  });

  it("with tokens: yes while the owner's name is configured; without sign-in: yes; misconfigured: unknown", async () => {
    const tokens = readAuthConfig({ AUTH_MODE: "token", ACCESS_TOKENS: "ann:0123456789abcdef0123,ben:abcdef0123456789abcd" });
    const never = async () => undefined;
    const now = Date.now();
    expect(await ownerAccess({ auth: tokens, owner: "token:ann", lastSeen: never, seenDays: 30, now })).toEqual({ may: "yes" });
    expect(await ownerAccess({ auth: tokens, owner: "token:cat", lastSeen: never, seenDays: 30, now })).toMatchObject({ may: "no" });
    expect(await ownerAccess({ auth: readAuthConfig({ AUTH_MODE: "none" }), owner: "local", lastSeen: never, seenDays: 30, now })).toEqual({ may: "yes" });
    expect(await ownerAccess({ auth: readAuthConfig({ AUTH_MODE: "token" }), owner: "token:ann", lastSeen: never, seenDays: 30, now })).toEqual({
      may: "unknown",
    });
  });
});
