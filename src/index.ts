// Worker entry: the Hono app and the Durable Object classes wrangler binds.
import { Hono } from "hono";
import type { Env } from "./env";
import { api, errorBody } from "./http/api";
import { sessions } from "./http/sessions";

export { ChatSession } from "./session/ChatSession";
export type { Env } from "./env";

const app = new Hono<{ Bindings: Env }>();

app.route("/api", api);
app.route("/sessions", sessions);
app.notFound((c) => c.json(errorBody("not_found", `no route ${c.req.method} ${new URL(c.req.url).pathname}`), 404));
// Never a stack trace or an internal path in a response.
app.onError((_error, c) => c.json(errorBody("internal", "internal error"), 500));

export default app;
