// Session routes: create an id, open the WebSocket, read the history, delete.
// Each session id names one ChatSession Durable Object, owned by the user who
// first opened it; everyone else gets 404. A user keeps at most
// MAX_SESSIONS_PER_USER sessions: creating one more answers 429.
import { Hono } from "hono";
import type { Context } from "hono";
import { runtimeConfig } from "../config/runtime-config";
import type { AppEnv } from "../identity/identify";
import { userAccount } from "../users/account";
import { TooManySessionsError } from "../users/session-limit";
import { REQUEST_ID_HEADER, SESSION_USER_HEADER } from "../session/ChatSession";
import { SESSION_ID, badSessionId, claimableSession, memberSession, ownedSession } from "./owned-session";
import { sessionCatalog } from "./session-catalog";
import { RequestError } from "../shared/errors";
import { z } from "zod";
import { limitBody, zodIssues } from "./request-body";
import { unknownPreset } from "./presets";

export const sessions = new Hono<AppEnv>();
sessions.route("/", sessionCatalog);

const maxSessions = (c: Context<AppEnv>) => runtimeConfig(c.env).settings.MAX_SESSIONS_PER_USER;

/** `preset`: one of the caller's presets, applied to the new chat (docs/presets.md). An empty body makes a plain chat. */
const NewSessionSchema = z.strictObject({ preset: z.string().min(1).max(128).optional() });

sessions.post("/", limitBody(4096), async (c) => {
  const text = await c.req.text();
  let body: unknown = {};
  try {
    body = text.trim() ? JSON.parse(text) : {};
  } catch {
    throw new RequestError("bad_json", "the body is not JSON");
  }
  const input = NewSessionSchema.safeParse(body);
  if (!input.success) throw new RequestError("bad_request", "the new session's options are invalid", { issues: zodIssues(input.error) });
  const { preset } = input.data;
  // Checked before the chat is made: an unknown preset makes no chat.
  if (preset && !(await userAccount(c.env, c.var.identity.id).getPreset(preset))) throw unknownPreset(preset);
  const id = crypto.randomUUID();
  const max = maxSessions(c);
  // Listed before it is claimed, in one step on the account, so parallel creations cannot pass the cap together.
  if (!(await userAccount(c.env, c.var.identity.id).reserveSession(id, max))) throw new TooManySessionsError(max);
  const owned = await ownedSession(c, id, { claim: true });
  // A refused model is said in `errors`; the rest of the preset still applied.
  const errors = preset ? (await owned.applyPreset(preset)).map(({ code, message }) => ({ code, message })) : [];
  return c.json({ id, ...(errors.length > 0 ? { errors } : {}) }, 201);
});

sessions.get("/:id/ws", async (c) => {
  if (!SESSION_ID.test(c.req.param("id"))) throw badSessionId();
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    throw new RequestError("upgrade_required", "open this URL as a WebSocket");
  }
  // The caller's own chat, one they were invited to (any role), or a new id claimed for them if it fits their cap.
  const owned = await claimableSession(c, c.req.param("id"), maxSessions(c));
  // A fresh request, not the client's: only the headers set here reach the object,
  // so nothing a client sends can name another user or steer agents' routing.
  const headers = new Headers({ Upgrade: "websocket", [SESSION_USER_HEADER]: c.var.identity.id, [REQUEST_ID_HEADER]: c.var.requestId });
  for (const name of ["sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol"]) {
    const value = c.req.header(name);
    if (value) headers.set(name, value);
  }
  return owned.fetch(new Request(`https://session.internal/sessions/${c.req.param("id")}/ws`, { headers }));
});

/** `?before=` a window's `older`: the part of the history just before it. */
const HistoryQuery = z.object({ before: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional() }).strict();
const EntrySeq = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

sessions.get("/:id/history", async (c) => {
  const query = HistoryQuery.safeParse(c.req.query());
  if (!query.success) throw new RequestError("bad_request", `history query: ${queryProblem(query.error)}`);
  // Invited people read it too (docs/people.md), viewers included.
  const owned = await memberSession(c, c.req.param("id"), "viewer");
  const { entries, older, usage, usageTotal, branches } = await owned.getHistory(query.data.before);
  return c.json({ id: c.req.param("id"), entries, usage, usageTotal, ...(older === undefined ? {} : { older }), ...(branches ? { branches } : {}) });
});

sessions.get("/:id/history/:seq", async (c) => {
  // Anything but an entry's number names no entry: 404, as for an unknown path.
  const seq = /^[0-9]+$/.test(c.req.param("seq")) ? EntrySeq.safeParse(c.req.param("seq")) : undefined;
  if (!seq?.success) throw new RequestError("not_found", `no route GET ${c.req.path}`);
  const owned = await memberSession(c, c.req.param("id"), "viewer");
  const entry = await owned.getEntry(seq.data);
  if (!entry) throw new RequestError("not_found", `no entry ${seq.data} in this conversation`);
  return c.json({ entry });
});

const queryProblem = (error: z.ZodError): string => {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  if (issue.code === "unrecognized_keys") return `unknown parameter ${issue.keys.join(", ")}`;
  return `${issue.path.join(".") || "query"}: must be a positive whole number (an entry's seq)`;
};

sessions.delete("/:id", async (c) => {
  const owned = await ownedSession(c, c.req.param("id"), { claim: false });
  await owned.deleteSession();
  return c.body(null, 204);
});
