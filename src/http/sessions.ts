// Session routes: create an id, open the WebSocket, read the history, delete.
// Each session id names one ChatSession Durable Object.
import { getAgentByName } from "agents";
import { Hono } from "hono";
import type { Env } from "../env";
import type { ChatSession } from "../session/ChatSession";
import { errorBody } from "./api";

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const sessions = new Hono<{ Bindings: Env }>();

function stub(env: Env, id: string): Promise<DurableObjectStub<ChatSession>> {
  return getAgentByName<Env, ChatSession>(env.CHAT_SESSION, id);
}

const badId = errorBody("bad_session_id", "session ids are 1-64 letters, digits, '_' or '-'");

sessions.post("/", (c) => c.json({ id: crypto.randomUUID() }, 201));

sessions.get("/:id/ws", async (c) => {
  const id = c.req.param("id");
  if (!SESSION_ID.test(id)) return c.json(badId, 400);
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    return c.json(errorBody("upgrade_required", "open this URL as a WebSocket"), 426);
  }
  return (await stub(c.env, id)).fetch(c.req.raw);
});

sessions.get("/:id/history", async (c) => {
  const id = c.req.param("id");
  if (!SESSION_ID.test(id)) return c.json(badId, 400);
  const entries = await (await stub(c.env, id)).getHistory();
  return c.json({ id, entries });
});

sessions.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!SESSION_ID.test(id)) return c.json(badId, 400);
  await (await stub(c.env, id)).deleteSession();
  return c.body(null, 204);
});
