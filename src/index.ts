// Worker entry: the Hono app and the Durable Object classes wrangler binds.
import { Hono } from "hono";

export { ChatSession } from "./session/ChatSession";

export interface Env {
  CHAT_SESSION: DurableObjectNamespace;
}

const app = new Hono<{ Bindings: Env }>();

app.get("/api/health", (c) => c.json({ ok: true, service: "edgehost" }));

export default app;
