// The single-use tokens a notification's Allow once / Deny answers with (docs/notifications.md).
// Each is 256 random bits, bound to one tool call, one person and the question's deadline;
// only its SHA-256 is stored (a copy of this table answers nothing). A token is used at most
// once, whatever the outcome; it stops working when the question is answered anywhere
// (settled), and rows are swept a day past their expiry.
import { z } from "zod";

const SWEEP_AFTER_MS = 24 * 60 * 60_000;
const TOKEN = /^v1\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$/;

export const ActBodySchema = z.object({ token: z.string().min(1).max(200), action: z.enum(["allow", "deny"]) }).strict();

/** The session a token names, or undefined for anything that is not a token's shape. */
export function tokenSession(token: string): string | undefined {
  return TOKEN.exec(token)?.[1];
}

export async function tokenHash(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function randomPart(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export type TokenState = "open" | "used" | "settled";

export interface TokenRow {
  callId: string;
  userId: string;
  expiresAt: number;
  state: TokenState;
}

export type Taken =
  | { ok: true; callId: string; userId: string }
  | { ok: false; code: "push_token_invalid" | "push_token_foreign" | "push_already_answered"; message: string };

const INVALID = { ok: false, code: "push_token_invalid", message: "this notification's action no longer works: open the chat" } as const;

export class ActionTokens {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS push_tokens (
      hash TEXT PRIMARY KEY,
      call_id TEXT NOT NULL,
      user_id TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      state TEXT NOT NULL
    )`);
  }

  async mint(session: string, callId: string, userId: string, expiresAt: number, now = Date.now()): Promise<string> {
    const token = `v1.${session}.${randomPart()}`;
    const hash = await tokenHash(token);
    this.sql.exec("DELETE FROM push_tokens WHERE expires_at < ?", now - SWEEP_AFTER_MS);
    this.sql.exec("INSERT INTO push_tokens (hash, call_id, user_id, expires_at, state) VALUES (?, ?, ?, ?, 'open')", hash, callId, userId, expiresAt);
    return token;
  }

  /**
   * Spends the token (synchronous: nothing can answer the call between this check and the
   * caller's answer). `presenter`: who is signed in, if anyone; another person than the token's
   * spends it without answering.
   */
  take(hash: string, presenter: string | undefined, now = Date.now()): Taken {
    const row = this.sql
      .exec<{ call_id: string; user_id: string; expires_at: number; state: string }>(
        "SELECT call_id, user_id, expires_at, state FROM push_tokens WHERE hash = ?",
        hash,
      )
      .toArray()[0];
    if (!row) return INVALID;
    this.sql.exec("UPDATE push_tokens SET state = 'used' WHERE hash = ?", hash);
    if (row.state === "used" || row.expires_at <= now) return INVALID;
    if (presenter !== undefined && presenter !== row.user_id)
      return { ok: false, code: "push_token_foreign", message: "this notification was sent to someone else" };
    if (row.state === "settled") return { ok: false, code: "push_already_answered", message: "this approval was answered already" };
    return { ok: true, callId: row.call_id, userId: row.user_id };
  }

  /** The call was answered (anywhere): its tokens now say so. */
  settle(callId: string): void {
    this.sql.exec("UPDATE push_tokens SET state = 'settled' WHERE call_id = ? AND state = 'open'", callId);
  }

  forget(): void {
    this.sql.exec("DELETE FROM push_tokens");
  }
}
