// One Durable Object per pairing code (named by the code): the pairing a bridge started
// with `mcp-local-bridge connect`, until a signed-in user approves it and the bridge
// collects its device credential, once. Codes live ten minutes; the object forgets
// everything at that alarm, or as soon as the bridge has collected its credential (storage
// deleted and alarm cleared: nothing is left to wait for). The credential is kept here only
// between approval and the bridge's next poll (a second or two).
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { sameDigest } from "./credentials";

export const PAIRING_TTL_MS = 10 * 60_000;

const StateSchema = z.object({
  name: z.string(),
  pollHash: z.string(),
  expiresAt: z.number(),
  /** Set once approved; the first user to approve wins. */
  approvedBy: z.string().optional(),
  /** Who approved, as the bridge shows it ("paired to …"): the email or token name. */
  approvedName: z.string().optional(),
  credential: z.string().optional(),
  collected: z.boolean().default(false),
});
type State = z.infer<typeof StateSchema>;

export type ClaimOutcome = { ok: true; name: string } | { ok: false; code: "pairing_unknown" | "pairing_used" };
export type PollOutcome = { state: "pending" } | { state: "approved"; credential: string; name: string; user: string } | { state: "unknown" };

const KEY = "pairing";

export class PairingCode extends DurableObject<unknown> {
  private async load(now = Date.now()): Promise<State | undefined> {
    const parsed = StateSchema.safeParse(await this.ctx.storage.get(KEY));
    if (parsed.success && parsed.data.expiresAt > now) return parsed.data;
    // Expired before its alarm ran (or never valid): forgotten now rather than later.
    if (parsed.success) await this.forget();
    return undefined;
  }

  private async forget(): Promise<void> {
    await this.ctx.storage.deleteAll();
    await this.ctx.storage.deleteAlarm();
  }

  /** False when the code is taken (a live pairing holds it): the caller draws another. */
  async create(name: string, pollHash: string, now = Date.now()): Promise<boolean> {
    if (await this.load(now)) return false;
    const state: State = { name, pollHash, expiresAt: now + PAIRING_TTL_MS, collected: false };
    await this.ctx.storage.put(KEY, state);
    await this.ctx.storage.setAlarm(state.expiresAt);
    return true;
  }

  /** What the page shows before the user approves: the name the machine asked for. */
  async describe(): Promise<{ name: string; expiresAt: number } | undefined> {
    const state = await this.load();
    return state && !state.approvedBy ? { name: state.name, expiresAt: state.expiresAt } : undefined;
  }

  /** Marks the pairing as `user`'s; single use. */
  async claim(user: string, displayName: string): Promise<ClaimOutcome> {
    const state = await this.load();
    if (!state) return { ok: false, code: "pairing_unknown" };
    if (state.approvedBy) return { ok: false, code: "pairing_used" };
    await this.ctx.storage.put(KEY, { ...state, approvedBy: user, approvedName: displayName });
    return { ok: true, name: state.name };
  }

  /** Hands the minted credential to the bridge's next poll. */
  /** `name`: the machine's name in the user's list (made unique there). */
  async deliver(credential: string, name: string): Promise<void> {
    const state = await this.load();
    if (state?.approvedBy) await this.ctx.storage.put(KEY, { ...state, credential, name });
  }

  /** The bridge asking, with its poll token's digest; the credential is given out once. */
  async poll(pollHash: string): Promise<PollOutcome> {
    const state = await this.load();
    if (!state || !sameDigest(state.pollHash, pollHash) || state.collected) return { state: "unknown" };
    if (!state.credential) return { state: "pending" };
    // Collected: the pairing is over, and a second poll or approval finds nothing.
    await this.forget();
    return { state: "approved", credential: state.credential, name: state.name, user: state.approvedName ?? "" };
  }

  override async alarm(): Promise<void> {
    await this.forget();
  }
}
