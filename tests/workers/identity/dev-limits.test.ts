// `npm run dev` runs the Worker with dev-only rate limits (scripts/lib/dev-output.mjs):
// a developer's six quick messages are taken there, while a deployment keeps its
// defaults (burst 5), which refuse the sixth. The real limiter, in the user's object.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEV_DEFAULTS } from "../../../scripts/lib/dev-output.mjs";
import type { Env } from "../../../src/config/env";
import { readSettings } from "../../../src/config/settings";
import { userAccount } from "../../../src/users/account";

const bindings = env as unknown as Env;

async function quickMessages(settings: Record<string, string>, count: number): Promise<boolean[]> {
  const { settings: parsed, problems } = readSettings(settings);
  expect(problems).toEqual([]);
  const account = userAccount(bindings, `token:dev-${crypto.randomUUID()}`);
  const limits = { perMinute: parsed.RATE_LIMIT_PER_MINUTE, burst: parsed.RATE_LIMIT_BURST };
  const taken: boolean[] = [];
  for (let i = 0; i < count; i++) taken.push((await account.admit("turn", limits)).ok);
  return taken;
}

describe("dev rate limits", () => {
  it("take a developer's six quick messages", async () => {
    expect(await quickMessages({ ...DEV_DEFAULTS }, 6)).toEqual([true, true, true, true, true, true]);
  });

  it("leave the deployed defaults as they are: the sixth quick message is refused", async () => {
    expect(await quickMessages({}, 6)).toEqual([true, true, true, true, true, false]);
  });
});
