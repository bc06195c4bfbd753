// Response shapes of the HTTP API. Every route builds its body through one of
// these, so what leaves the Worker is exactly what is documented (and no secret
// from the config can slip into a response by accident).
import { z } from "zod";
import { HostMetricsSchema } from "../mcp/host";
import { ServerInfoSchema } from "../session/answers";

export const MeSchema = z.object({
  user: z.object({ id: z.string(), name: z.string() }),
  authMode: z.enum(["access", "token", "none"]),
});

export const SessionListSchema = z.object({
  sessions: z.array(z.object({ id: z.string(), title: z.string().nullable(), lastActivity: z.number(), pinned: z.boolean() })),
});

export const LoginRequestSchema = z.object({ token: z.string().min(1).max(4096) });

export const HealthSchema = z.object({
  ok: z.literal(true),
  service: z.literal("edgehost"),
  model: z.object({ provider: z.string(), model: z.string() }).nullable(),
  notice: z.string().optional(),
});

export const ServersSchema = z.object({ servers: z.array(ServerInfoSchema) });

export const MetricsSchema = HostMetricsSchema;

export const ToolCallRequestSchema = z.object({
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** The caller (the page's tool console) confirmed a tool that needs approval. */
  approved: z.boolean().optional(),
  /** With `approved`: stop asking for this tool in that session. */
  remember: z.boolean().optional(),
  sessionId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
});
