// A notification's Allow once / Deny reaching the chat (POST /push/act → ChatSession.answerPush):
// the token is spent and the approval answered in one synchronous block after the hash, so no
// answer from a page can come between the check and the answer. The token's person must still
// be one who answers in this chat (its owner, or an approver it is shared with): a token pushed
// to an approver who was removed or made a viewer since answers nothing.
import type { Approvals } from "../../approval/approvals";
import type { PersonRef } from "../../protocol/messages";
import type { Logger } from "../../shared/logger";
import { type ActionTokens, tokenHash } from "./action-tokens";

export type PushAnswer =
  | { ok: true; outcome: "allowed" | "denied" }
  | { ok: false; code: "push_token_invalid" | "push_token_foreign" | "push_already_answered"; message: string };

export interface PushAction {
  token: string;
  approved: boolean;
  /** Who is signed in where the action was taken, if anyone. */
  presenter: string | undefined;
}

export async function answerFromPush(
  parts: { tokens: ActionTokens; approvals: Approvals },
  log: Logger,
  { token, approved, presenter }: PushAction,
  /** Whether `user` still answers here (undefined: no), and how an answer names them. */
  answerer: (user: string) => { by?: PersonRef } | undefined,
): Promise<PushAnswer> {
  const hash = await tokenHash(token);
  const taken = parts.tokens.take(hash, presenter);
  if (!taken.ok) {
    // Someone signed in as another person holds this person's token: worth an operator's look.
    if (taken.code === "push_token_foreign") log.warn("push action refused", { reason: "another person's token" });
    return taken;
  }
  const who = answerer(taken.userId);
  if (!who) return { ok: false, code: "push_token_invalid", message: "you no longer answer approvals in this chat" };
  const answered = parts.approvals.answer({ type: "approval", callId: taken.callId, approved, remember: false }, "notification", who.by);
  // Timed out, cancelled with its turn, or lost in a restart: nothing waits any more.
  if (!answered.ok) return { ok: false, code: "push_token_invalid", message: "this approval no longer waits: open the chat" };
  log.info("approval answered", { callId: taken.callId, approved, via: "notification" });
  return { ok: true, outcome: approved ? "allowed" : "denied" };
}
