// What a push says. A session hands its person's account a PushNotice (what happened); the
// account adds the chat's title and turns it into the payload the service worker reads
// (version 1). Arguments, results and secrets are never part of either: a notice names only
// the kind, the chat, the server and the tool, and an approval's single-use token.
// With detail "minimal" (the person's choice) not even the names go out.
import { z } from "zod";

const name = z.string().min(1).max(200);

export const PushNoticeSchema = z.object({
  kind: z.enum(["approval", "question", "turn_done", "schedule_done", "schedule_paused", "test"]),
  session: z.string().min(1).max(200),
  /** The approval's tool call or the question's request id; the long turn's or the scheduled run's id; the paused schedule's id. */
  ref: z.string().min(1).max(200).optional(),
  server: name.optional(),
  tool: name.optional(),
  /** An approval's action token (src/session/notify/action-tokens.ts) and when it stops working. */
  token: z.string().min(1).max(300).optional(),
  expiresAt: z.number().int().optional(),
  /** How a scheduled run ended (schedule_done). */
  outcome: z.enum(["completed", "failed", "cancelled"]).optional(),
});
export type PushNotice = z.infer<typeof PushNoticeSchema>;

export type PushDetail = "full" | "minimal";

export interface PushPayload {
  v: 1;
  kind: PushNotice["kind"];
  session: string;
  /** The notification's tag: one notification per approval, question or turn, replaced, never stacked. */
  tag: string;
  chat?: string;
  server?: string;
  tool?: string;
  ref?: string;
  token?: string;
  expiresAt?: number;
  outcome?: PushNotice["outcome"];
}

export function payloadFor(notice: PushNotice, detail: PushDetail, chatTitle: string | null | undefined): PushPayload {
  const tag = `${notice.kind}:${notice.ref ?? notice.session}`;
  const payload: PushPayload = { v: 1, kind: notice.kind, session: notice.session, tag };
  if (notice.ref) payload.ref = notice.ref;
  if (notice.token) payload.token = notice.token;
  if (notice.expiresAt) payload.expiresAt = notice.expiresAt;
  if (notice.outcome) payload.outcome = notice.outcome;
  if (detail === "full") {
    if (chatTitle) payload.chat = chatTitle;
    if (notice.server) payload.server = notice.server;
    if (notice.tool) payload.tool = notice.tool;
  }
  return payload;
}
