// Response shapes of the HTTP API. Every route builds its body through one of
// these, so what leaves the Worker is exactly what is documented (and no secret
// from the config can slip into a response by accident).
import { z } from "zod";
import { ToolViewSchema } from "../mcp/capabilities";
import type { PublicError } from "../shared/errors";
import { HostMetricsSchema } from "../mcp/host";
import { SessionServerSchema } from "../session/protocol";

export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    retryAfterMs: z.number().optional(),
    /** On 401: how to sign in ("token": the page shows its login form). */
    authMode: z.enum(["access", "token", "none"]).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const MeSchema = z.object({
  user: z.object({ id: z.string(), name: z.string() }),
  authMode: z.enum(["access", "token", "none"]),
});

export const SessionListSchema = z.object({
  sessions: z.array(z.object({ id: z.string(), title: z.string().nullable(), lastActivity: z.number() })),
});

export const LoginRequestSchema = z.object({ token: z.string().min(1).max(4096) });

export const HealthSchema = z.object({
  ok: z.literal(true),
  service: z.literal("edgehost"),
  model: z.object({ provider: z.string(), model: z.string() }).nullable(),
  notice: z.string().optional(),
});

const ToolSchema = ToolViewSchema.pick({ name: true, qualifiedName: true, functionName: true, title: true, description: true, inputSchema: true }).extend({
  needsApproval: z.boolean(),
});

export const ServerInfoSchema = SessionServerSchema.extend({
  transport: z.string(),
  alwaysAllow: z.array(z.string()),
  tools: z.array(ToolSchema),
  prompts: z.array(z.object({ name: z.string(), description: z.string().optional() })),
  resources: z.array(z.object({ uri: z.string(), name: z.string() })),
});
export type ServerInfo = z.infer<typeof ServerInfoSchema>;

export const ServersSchema = z.object({ servers: z.array(ServerInfoSchema) });

export const MetricsSchema = HostMetricsSchema;

export const ToolCallRequestSchema = z.object({
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** The caller (the page's tool console) confirmed a tool that needs approval. */
  approved: z.boolean().optional(),
  /** With `approved`: stop asking for this tool in that session. */
  remember: z.boolean().optional(),
  sessionId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
});

export const ToolCallResponseSchema = z.object({
  result: z.object({
    content: z.array(z.record(z.string(), z.unknown())),
    structuredContent: z.record(z.string(), z.unknown()).optional(),
    isError: z.boolean().optional(),
  }),
  durationMs: z.number(),
});
export type ToolCallResponse = z.infer<typeof ToolCallResponseSchema>;

/** What a session answers to a direct tool call: a response, or a typed error (the HTTP layer picks the status). */
export type DirectCallOutcome = { ok: true; body: ToolCallResponse } | { ok: false; error: PublicError };
