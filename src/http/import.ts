// Import: POST /api/import brings exported conversations back as new sessions of the
// caller (src/http/import-formats.ts reads the formats; src/session/history-import.ts
// writes a history). Each one is a new session under the caller's session cap, titled as
// it was (or by its first message), and searchable at once.
import { Hono } from "hono";
import { runtimeConfig } from "../config/runtime-config";
import type { AppEnv } from "../identity/identify";
import { userAccount } from "../users/account";
import { TooManySessionsError } from "../users/session-limit";
import { RequestError } from "../shared/errors";
import { readImport } from "./import-formats";
import { ownedSession } from "./owned-session";
import { limitBody } from "./request-body";
import { MAX_JSON_DEPTH, tooDeep } from "../shared/limits";

export const importRoutes = new Hono<AppEnv>();

export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
const TITLE_CHARS = 80;

importRoutes.post("/api/import", limitBody(MAX_IMPORT_BYTES), async (c) => {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new RequestError("bad_json", "the body is not valid JSON");
  }
  if (tooDeep(body)) throw new RequestError("bad_request", `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  const conversations = readImport(body);
  const account = userAccount(c.env, c.var.identity.id);
  const max = runtimeConfig(c.env).settings.MAX_SESSIONS_PER_USER;
  // All or nothing against the cap, said before anything is made.
  if ((await account.listSessions()).length + conversations.length > max) throw new TooManySessionsError(max);
  const imported = [];
  for (const conversation of conversations) {
    const id = crypto.randomUUID();
    if (!(await account.reserveSession(id, max))) throw new TooManySessionsError(max);
    const stub = await ownedSession(c, id, { claim: true });
    const outcome = await stub.importHistory(conversation.entries);
    if ("refused" in outcome) throw new RequestError("bad_request", outcome.refused);
    const firstMessage = conversation.entries.find((e) => e.kind === "user")?.text;
    const title = (conversation.title ?? firstMessage ?? "").replace(/\s+/g, " ").trim().slice(0, TITLE_CHARS) || "Imported conversation";
    await account.renameSession(id, title);
    imported.push({ id, title, entries: outcome.imported });
  }
  return c.json({ imported }, 201);
});
