// /api routes: health, servers (config, state, capabilities), metrics, and direct
// tool calls. Server state lives in Durable Objects (MCP connections cannot be
// shared across requests in a Worker isolate): `?session=` picks the session whose
// view to use, else a shared "console" object answers.
import { getAgentByName } from "agents";
import { Hono } from "hono";
import { readSettings, type Env } from "../env";
import { createProvider } from "../llm/select";
import type { ChatSession } from "../session/ChatSession";
import { MAX_JSON_DEPTH, MAX_TOOL_BODY_BYTES, tooDeep } from "./limits";
import { ErrorBodySchema, HealthSchema, MetricsSchema, ServersSchema, ToolCallRequestSchema, ToolCallResponseSchema, type ErrorBody } from "./schemas";

const CONSOLE_SESSION = "_console";
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const api = new Hono<{ Bindings: Env }>();

export function errorBody(code: string, message: string, extra: Partial<ErrorBody["error"]> = {}): ErrorBody {
  return ErrorBodySchema.parse({ error: { code, message, ...extra } });
}

async function session(env: Env, id: string | undefined): Promise<DurableObjectStub<ChatSession>> {
  return getAgentByName<Env, ChatSession>(env.CHAT_SESSION, id && SESSION_ID.test(id) ? id : CONSOLE_SESSION);
}

api.get("/health", (c) => {
  const selected = createProvider(c.env, { retry: { initialMs: readSettings(c.env).settings.LLM_RETRY_INITIAL_MS } });
  const model = "provider" in selected ? { provider: selected.provider.name, model: selected.provider.model } : null;
  return c.json(HealthSchema.parse({ ok: true, service: "edgehost", model, notice: "missing" in selected ? selected.missing : undefined }));
});

api.get("/servers", async (c) => {
  const servers = await (await session(c.env, c.req.query("session"))).serversInfo();
  return c.json(ServersSchema.parse({ servers }));
});

api.get("/metrics", async (c) => {
  const metrics = await (await session(c.env, c.req.query("session"))).metricsInfo();
  return c.json(MetricsSchema.parse(metrics));
});

api.post("/tools/:name", async (c) => {
  const name = c.req.param("name");
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\..+$/.test(name)) {
    return c.json(errorBody("bad_tool_name", "tool names are {server}.{tool}"), 400);
  }
  const declared = Number(c.req.header("content-length") ?? 0);
  const text = declared > MAX_TOOL_BODY_BYTES ? "" : await c.req.text();
  if (declared > MAX_TOOL_BODY_BYTES || text.length > MAX_TOOL_BODY_BYTES) {
    return c.json(errorBody("payload_too_large", `the body is larger than ${MAX_TOOL_BODY_BYTES} bytes`), 413);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return c.json(errorBody("bad_json", "the body is not valid JSON"), 400);
  }
  if (tooDeep(raw)) return c.json(errorBody("bad_request", `the body nests deeper than ${MAX_JSON_DEPTH} levels`), 400);
  const parsed = ToolCallRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    return c.json(errorBody("bad_request", "the body must be {\"arguments\": {...}, \"approved\"?: boolean, \"sessionId\"?: string}", { issues }), 400);
  }
  const outcome = await (await session(c.env, parsed.data.sessionId)).callTool(name, parsed.data.arguments, parsed.data.approved ?? false);
  if (!outcome.ok) return c.json(ErrorBodySchema.parse(outcome.body), outcome.status as 400);
  return c.json(ToolCallResponseSchema.parse(outcome.body));
});
