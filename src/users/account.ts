// Where a user's account object lives: one UserAccount per identity id.
import type { Env } from "../config/env";
import type { UserAccount } from "./UserAccount";

export function userAccount(env: Pick<Env, "USER_ACCOUNT">, userId: string): DurableObjectStub<UserAccount> {
  return env.USER_ACCOUNT.get(env.USER_ACCOUNT.idFromName(userId)) as DurableObjectStub<UserAccount>;
}

const encoder = new TextEncoder();

/** The user's own console session (direct tool calls), never shared: derived from their id. */
export async function consoleSessionId(userId: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(`console:${userId}`)));
  return `console-${[...hash.slice(0, 20)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
