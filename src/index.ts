// Worker entry: the Hono app and the Durable Object classes wrangler binds.
import { Hono } from "hono";
import type { Env } from "./env";
import { sessions } from "./http/sessions";

export { ChatSession } from "./session/ChatSession";
export type { Env } from "./env";

const app = new Hono<{ Bindings: Env }>();

app.get("/api/health", (c) => c.json({ ok: true, service: "edgehost" }));
app.route("/sessions", sessions);
app.notFound((c) => c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${new URL(c.req.url).pathname}` } }, 404));
app.onError((_error, c) => c.json({ error: { code: "internal", message: "internal error" } }, 500));

export default app;
