// What a session answers to the Worker's RPC calls (its servers, a direct tool
// call), as zod schemas: the HTTP API returns exactly these shapes.
import { z } from "zod";
import { ToolViewSchema } from "../mcp/capabilities";
import type { PublicError } from "../shared/errors";
import { SessionServerSchema } from "../protocol/messages";

const ToolSchema = ToolViewSchema.pick({
  name: true,
  qualifiedName: true,
  functionName: true,
  title: true,
  description: true,
  inputSchema: true,
  uiResourceUri: true,
}).extend({
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
