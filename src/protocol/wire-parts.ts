// The pieces the page and a chat session both name in their frames (messages.ts): files,
// models, rules, people, history entries, servers and schedules, as zod schemas. The frames
// themselves are in client-messages.ts (page → session) and messages.ts (session → page).
import { z } from "zod";
import { ServerStatusSchema } from "../mcp/capabilities";
import { ArgumentRuleSchema } from "../shared/argument-rule";

/** A resource attached to a message: which server, which uri (docs/mcp-features.md: resources and prompts). */
export const AttachmentRefSchema = z.object({ server: z.string().min(1).max(64), uri: z.string().min(1).max(2048) });

/** A file from the user's computer a user entry carried (docs/files.md); its bytes stay in R2, served at /api/files/{id}. */
export const FileRefSchema = z.object({
  id: z.string(),
  name: z.string(),
  mimeType: z.string(),
  kind: z.enum(["image", "pdf", "text"]),
  size: z.number(),
});
export type FileRef = z.infer<typeof FileRefSchema>;

/**
 * A session's model and its settings (src/llm/registry.ts): `provider` is a provider id of
 * the deployment (MODEL_PROVIDERS) or `user:{id}` for one of the user's own.
 */
export const ModelChoiceSchema = z.object({
  provider: z.string().regex(/^(user:)?[a-z0-9][a-z0-9_-]{0,31}$/, "a provider id"),
  model: z.string().regex(/^[A-Za-z0-9][\w.:/@+-]{0,127}$/, "a model name"),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().min(1).max(1_000_000).optional(),
  toolMode: z.enum(["native", "prompted"]).optional(),
});
export type ModelChoiceFrame = z.infer<typeof ModelChoiceSchema>;

/** A model the caller may choose, as GET /api/models lists it for the picker. */
export const ModelOptionSchema = z.object({
  provider: z.string(),
  model: z.string(),
  providerLabel: z.string(),
  source: z.enum(["deployment", "user"]),
});
export type ModelOption = z.infer<typeof ModelOptionSchema>;

/** An argument rule as the person asks for it (src/approval/argument-rules.ts; docs/rules.md): a kept rule's terms. */
export const RuleSpecSchema = ArgumentRuleSchema.pick({ arg: true, kind: true, value: true, schemes: true }).extend({
  /** `chat`: this chat; `all`: every chat of the person (and their /mcp clients). */
  scope: z.enum(["chat", "all"]).default("chat"),
});
export type RuleSpec = z.infer<typeof RuleSpecSchema>;

/** An argument rule as the page lists it. */
export const RuleViewSchema = z.object({ id: z.string(), text: z.string(), scope: z.enum(["chat", "all"]), server: z.string(), tool: z.string() });
export type RuleView = z.infer<typeof RuleViewSchema>;

export const UsageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number() });
export type Usage = z.infer<typeof UsageSchema>;

/** A person on the wire (docs/people.md): their key (a hash of their id; ids never go out) and display name. */
export const PersonRefSchema = z.object({ key: z.string(), name: z.string() });
export type PersonRef = z.infer<typeof PersonRefSchema>;
export const RoleSchema = z.enum(["viewer", "participant", "approver", "owner"]);

export const HistoryEntrySchema = z.object({
  seq: z.number().int(),
  turnId: z.string().nullable(),
  kind: z.enum(["user", "assistant", "tool_call", "tool_result", "notice", "error", "summary"]),
  text: z.string().optional(),
  callId: z.string().optional(),
  server: z.string().optional(),
  tool: z.string().optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  durationMs: z.number().optional(),
  /** Tool calls an assistant message asked for. */
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) })).optional(),
  /** Assistant text cut short by a cancel or an error. */
  partial: z.boolean().optional(),
  /** A summary entry (compaction): how many turns it stands in for, up to and including turn `upTo` of the path. */
  summaryOf: z.object({ turns: z.number().int(), upTo: z.string() }).optional(),
  /** The model that wrote an assistant entry, as `provider/model`. */
  model: z.string().optional(),
  /** Sent shortened (a big tool result or text in a history window): its full length; GET /sessions/{id}/history/{seq} has it whole. */
  cut: z.object({ chars: z.number().int() }).optional(),
  /** A user entry's attached resources (their contents go to the model; the page shows chips). */
  attachments: z.array(AttachmentRefSchema.extend({ name: z.string().optional(), mimeType: z.string().optional() })).optional(),
  /** A user entry's files from the user's computer (the page shows chips, with a preview for images). */
  files: z.array(FileRefSchema).optional(),
  /** A user entry a server's prompt wrote: which one, with which arguments. */
  prompt: z.object({ server: z.string(), name: z.string(), arguments: z.record(z.string(), z.string()) }).optional(),
  /** A user entry a held task's follow-up wrote (src/session/tasks/task-view.ts): the model's message, shown as a note of the task, not the person's words. */
  task: z.object({ server: z.string(), tool: z.string(), callId: z.string(), outcome: z.enum(["completed", "failed"]) }).optional(),
  /** A user entry a schedule wrote (src/session/schedules/): the page shows "Scheduled · {spec}" instead of "You". */
  scheduled: z.object({ id: z.string(), spec: z.string() }).optional(),
  /** A user entry a person sent from a socket of a shared chat (docs/people.md); absent on older entries (the owner's). */
  author: PersonRefSchema.optional(),
  createdAt: z.number(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

/** A server as the page's panel shows it: the host's status plus this session's on/off choice. */
// "unavailable" also stands for a server this Worker cannot reach at all (a stdio one without the bridge).
export const SessionServerSchema = ServerStatusSchema.pick({ name: true, state: true, toolCount: true, lastError: true, protocol: true }).extend({
  enabled: z.boolean(),
  /** A ready server's tool names (a new chat's welcome suggests prompts from them, without asking for the catalogue). */
  tools: z.array(z.string()).optional(),
});

/** An image or audio clip of a tool result, base64 (within the turn's media budget, src/orchestrator/tool-results.ts). */
export const MediaSchema = z.object({ type: z.enum(["image", "audio"]), mimeType: z.string(), data: z.string() });

export const ProgressSchema = z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() });

/** A chat's schedule as its owner sees it (src/session/schedules/schedule-rows.ts). */
export const ScheduleViewSchema = z.object({
  id: z.string(),
  /** Canonical time ("weekdays 08:00"), wall clock of `timeZone`. */
  spec: z.string(),
  timeZone: z.string(),
  text: z.string(),
  /** `server.tool` names the run may call without asking. */
  grants: z.array(z.string()),
  label: z.string().optional(),
  /** The next run (ms), absent while paused. */
  nextAt: z.number().optional(),
  lastRunAt: z.number().optional(),
  lastOutcome: z.string().optional(),
  /** Why it stopped: `failures` (SCHEDULE_MAX_FAILURES failed runs in a row). */
  paused: z.string().optional(),
  runs: z.number().int(),
});
export type ScheduleView = z.infer<typeof ScheduleViewSchema>;
