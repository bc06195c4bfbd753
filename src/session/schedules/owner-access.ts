// Whether a schedule's owner may still run it (docs/schedules.md, "When the owner loses
// access"): a schedule must not outlive its person's access to the deployment. Without
// sign-in (AUTH_MODE none) there is one person and the answer is always yes. With tokens,
// the owner's name must still be among ACCESS_TOKENS. Behind Cloudflare Access the Worker
// cannot ask Access, so it reads when the person last loaded the page (/api/me feeds the
// operator's users table, src/ops/Operations.ts): not within SCHEDULE_OWNER_SEEN_DAYS means
// no. "unknown" (the operations object unreachable, sign-in misconfigured) removes nothing.
import type { AuthConfig } from "../../config/auth";

export type OwnerAccess = { may: "yes" } | { may: "no"; why: string } | { may: "unknown" };

export interface OwnerAccessInput {
  auth: AuthConfig;
  /** The owner's identity id (token users: `token:<name>`, src/identity/tokens.ts). */
  owner: string;
  /** When the deployment last saw the owner (Operations.lastSeen); undefined: never. */
  lastSeen: (owner: string) => Promise<number | undefined>;
  seenDays: number;
  now: number;
}

const DAY_MS = 86_400_000;

export async function ownerAccess(input: OwnerAccessInput): Promise<OwnerAccess> {
  const { auth, owner } = input;
  switch (auth.mode) {
    case "none":
      return { may: "yes" };
    case "token":
      // The same id identify.ts gives a token's user (session/ may not import identity/).
      return auth.tokens.some((t) => `token:${t.name}` === owner)
        ? { may: "yes" }
        : { may: "no", why: "its owner's sign-in token is no longer configured (ACCESS_TOKENS)" };
    case "access": {
      let seen: number | undefined;
      try {
        seen = await input.lastSeen(owner);
      } catch {
        return { may: "unknown" };
      }
      if (seen !== undefined && input.now - seen <= input.seenDays * DAY_MS) return { may: "yes" };
      return { may: "no", why: `its owner has not opened edgehost for ${input.seenDays} days` };
    }
    default:
      return { may: "unknown" };
  }
}
