// Approvals a connected app's call waits for, kept in the person's account so their page can
// show and answer them (design-38 §2.5 d/e, §2.7). The app object (src/gateway/held-*.ts)
// writes a question when a client that cannot ask its person calls a tool needing approval;
// the page lists the open ones (GET /api/apps/questions) and answers one (POST
// /api/apps/:id/answers). The account is where "answered once" is decided: a second answer
// is refused, an expired question is gone, and only the app's owner's page reaches this table.
import { z } from "zod";

/** What the page shows of a question: the chat's approval frame fields (server, tool, arguments). */
export const HeldQuestionSchema = z.object({
  server: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});
export type HeldQuestion = z.infer<typeof HeldQuestionSchema>;

export interface QuestionAsked {
  appId: string;
  id: string;
  question: HeldQuestion;
  /** SHA-256 of the call's canonical arguments: an approval after the hold becomes a one-shot for these only. */
  argsHash: string;
  expiresAt: number;
}

// The question goes back as its JSON (read with HeldQuestionSchema): arguments of any shape
// do not pass as a typed value through a Durable Object RPC's types.
export interface OpenQuestion {
  id: string;
  appId: string;
  appName: string;
  questionJson: string;
  expiresAt: number;
}

export type QuestionAnswer = { ok: true; questionJson: string; argsHash: string } | { ok: false; reason: "not_found" | "answered" | "expired" };

type Row = { app_id: string; id: string; frame_json: string; args_hash: string; expires_at: number; answered: number };

/** Open questions one app may keep at once: a client calling in a loop must not grow the account without bound. */
export const MAX_OPEN_PER_APP = 20;
/**
 * The most a question's JSON may hold. The page shows every argument before the person allows
 * the call, and lists all open questions every 3 s: a call with bigger arguments is not held
 * (the client is told approval_required) rather than shown cut short or sent again and again.
 */
export const MAX_QUESTION_CHARS = 64 * 1024;
/** An answered or expired question is kept this long after its expiry, so a late answer is told 409/410, not 404. */
const KEPT_AFTER_EXPIRY_MS = 60 * 60_000;

export class GatewayQuestions {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS gateway_questions (
      app_id TEXT NOT NULL, id TEXT NOT NULL, frame_json TEXT NOT NULL, args_hash TEXT NOT NULL,
      expires_at INTEGER NOT NULL, answered INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (app_id, id))`);
  }

  /** Records a held call's question; false when the app has too many open already or it is too big (the call is refused, not held). */
  ask(asked: QuestionAsked, now: number): boolean {
    const frame = JSON.stringify(HeldQuestionSchema.parse(asked.question));
    if (frame.length > MAX_QUESTION_CHARS) return false;
    this.sql.exec("DELETE FROM gateway_questions WHERE expires_at < ?", now - KEPT_AFTER_EXPIRY_MS);
    const open = this.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM gateway_questions WHERE app_id = ? AND answered = 0 AND expires_at > ?", asked.appId, now)
      .one().n;
    if (open >= MAX_OPEN_PER_APP) return false;
    this.sql.exec(
      "INSERT OR REPLACE INTO gateway_questions (app_id, id, frame_json, args_hash, expires_at, answered) VALUES (?, ?, ?, ?, ?, 0)",
      asked.appId,
      asked.id,
      frame,
      asked.argsHash,
      asked.expiresAt,
    );
    return true;
  }

  /** The person's open questions, oldest first, with the name of the app asking (connected apps only). */
  open(now: number): OpenQuestion[] {
    return this.sql
      .exec<Row & { client_name: string }>(
        `SELECT q.*, a.client_name FROM gateway_questions q JOIN connected_apps a ON a.app_id = q.app_id
         WHERE q.answered = 0 AND q.expires_at > ? ORDER BY q.expires_at`,
        now,
      )
      .toArray()
      .map((row) => ({ id: row.id, appId: row.app_id, appName: row.client_name, questionJson: row.frame_json, expiresAt: row.expires_at }));
  }

  /** How many questions are open (the page's bootstrap says so). */
  openCount(now: number): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM gateway_questions WHERE answered = 0 AND expires_at > ?", now).one().n;
  }

  /** The page's answer: taken once, while open. The question it answered, for the app object. */
  answer(appId: string, id: string, now: number): QuestionAnswer {
    const row = this.sql.exec<Row>("SELECT * FROM gateway_questions WHERE app_id = ? AND id = ?", appId, id).toArray()[0];
    if (!row) return { ok: false, reason: "not_found" };
    if (row.answered === 1) return { ok: false, reason: "answered" };
    if (row.expires_at <= now) return { ok: false, reason: "expired" };
    this.sql.exec("UPDATE gateway_questions SET answered = 1 WHERE app_id = ? AND id = ?", appId, id);
    return { ok: true, questionJson: row.frame_json, argsHash: row.args_hash };
  }

  /** The app was disconnected: its questions go with it. */
  dropApp(appId: string): void {
    this.sql.exec("DELETE FROM gateway_questions WHERE app_id = ?", appId);
  }

  /** Delete my data. */
  dropAll(): void {
    this.sql.exec("DELETE FROM gateway_questions");
  }
}
