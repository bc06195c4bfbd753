// Session routes: create an id, open the WebSocket, read the history, delete.
// Each session id names one ChatSession Durable Object, owned by the user who
// first opened it; everyone else gets 404.
import { Hono } from "hono";
import type { AppEnv } from "../identity/identify";
import { SESSION_USER_HEADER } from "../session/ChatSession";
import { errorBody } from "../shared/error-body";
import { SESSION_ID, badSessionId, ownedSession } from "./owned-session";
import { sessionCatalog } from "./session-catalog";

export const sessions = new Hono<AppEnv>();
sessions.route("/", sessionCatalog);

sessions.post("/", async (c) => {
  const id = crypto.randomUUID();
  const owned = await ownedSession(c, id, { claim: true });
  if (owned instanceof Response) return owned;
  return c.json({ id }, 201);
});

sessions.get("/:id/ws", async (c) => {
  if (!SESSION_ID.test(c.req.param("id"))) return c.json(badSessionId(), 400);
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    return c.json(errorBody("upgrade_required", "open this URL as a WebSocket"), 426);
  }
  const owned = await ownedSession(c, c.req.param("id"), { claim: true });
  if (owned instanceof Response) return owned;
  // A fresh request, not the client's: only the headers set here reach the object,
  // so nothing a client sends can name another user or steer agents' routing.
  const headers = new Headers({ Upgrade: "websocket", [SESSION_USER_HEADER]: c.var.identity.id });
  for (const name of ["sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol"]) {
    const value = c.req.header(name);
    if (value) headers.set(name, value);
  }
  return owned.fetch(new Request(`https://session.internal/sessions/${c.req.param("id")}/ws`, { headers }));
});

sessions.get("/:id/history", async (c) => {
  const owned = await ownedSession(c, c.req.param("id"), { claim: false });
  if (owned instanceof Response) return owned;
  const { entries, usage } = await owned.getHistory();
  return c.json({ id: c.req.param("id"), entries, usage });
});

sessions.delete("/:id", async (c) => {
  const owned = await ownedSession(c, c.req.param("id"), { claim: false });
  if (owned instanceof Response) return owned;
  await owned.deleteSession();
  return c.body(null, 204);
});
