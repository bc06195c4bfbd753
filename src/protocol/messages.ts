// Every WebSocket message between the page and a chat session, as zod schemas:
// the single source of truth for the protocol (docs/websocket-protocol.md documents it). Client
// frames are parsed here and nowhere else; anything that fails gets an `error`
// frame naming what was wrong, and the socket stays open.
import { z } from "zod";
import { ServerStatusSchema } from "../mcp/capabilities";
import { isWsErrorCode, WS_ERROR_CODE_NAMES, type WsErrorCode } from "../shared/error-codes";
import { EdgehostError } from "../shared/errors";

export const MAX_FRAME_BYTES = 64 * 1024;
export const MAX_MESSAGE_CHARS = 16_000;

const id = z.string().min(1).max(128);

/** A resource attached to a message: which server, which uri (docs/mcp-features.md: resources and prompts). */
const AttachmentRefSchema = z.object({ server: z.string().min(1).max(64), uri: z.string().min(1).max(2048) });
/** Frame bound only; the session's own limit (src/session/attachments.ts) is lower and answered with a typed error. */
const attachments = z.array(AttachmentRefSchema).max(64).optional();
/** Files uploaded to this session (POST /sessions/{id}/files) by id; frame bound only, UPLOAD_MAX_FILES is the session's limit. */
const files = z.array(z.string().min(1).max(64)).max(64).optional();

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

/** An argument rule as the person asks for it (src/approval/argument-rules.ts; docs/rules.md). */
export const RuleSpecSchema = z.object({
  /** A top-level argument of the tool. */
  arg: z.string().min(1).max(128),
  kind: z.enum(["path", "host", "equals"]),
  /** A folder (`notes/`), a host (`example.com`, `*.example.com`), or for equals the exact text (an enum's value). */
  value: z.string().min(1).max(4096),
  /** Host rules: https alone unless http is listed too. */
  schemes: z
    .array(z.enum(["https", "http"]))
    .min(1)
    .max(2)
    .optional(),
  /** `chat`: this chat; `all`: every chat of the person (and their /mcp clients). */
  scope: z.enum(["chat", "all"]).default("chat"),
});
export type RuleSpec = z.infer<typeof RuleSpecSchema>;

/** An argument rule as the page lists it. */
export const RuleViewSchema = z.object({ id: z.string(), text: z.string(), scope: z.enum(["chat", "all"]), server: z.string(), tool: z.string() });
export type RuleView = z.infer<typeof RuleViewSchema>;

export const ClientMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("message"),
    text: z.string().trim().min(1, "text is empty").max(MAX_MESSAGE_CHARS, `text is longer than ${MAX_MESSAGE_CHARS} characters`),
    attachments,
    files,
  }),
  /** Starts a turn with a server's prompt (prompts/get); its messages open the conversation of the turn. */
  z.object({
    type: z.literal("prompt"),
    server: z.string().min(1).max(64),
    name: z.string().min(1).max(256),
    arguments: z.record(z.string().max(256), z.string().max(MAX_MESSAGE_CHARS)).optional(),
    attachments,
    files,
  }),
  z.object({ type: z.literal("cancel"), turnId: id.optional() }),
  /** Answers turn `turnId`'s message again: a new version of the turn beside the old one (docs/websocket-protocol.md: branches). */
  z.object({ type: z.literal("regenerate"), turnId: id }),
  /** Sends an edited version of turn `turnId`'s message: a new turn beside it. */
  z.object({
    type: z.literal("edit"),
    turnId: id,
    text: z.string().trim().min(1, "text is empty").max(MAX_MESSAGE_CHARS, `text is longer than ${MAX_MESSAGE_CHARS} characters`),
  }),
  /** Shows the version `turnId` of its turn (and the newest turns after it). */
  z.object({ type: z.literal("switch_branch"), turnId: id }),
  /** Summarizes every turn so far into one entry the model reads instead (`/compact`). */
  z.object({ type: z.literal("compact") }),
  /** `rule`: allow this call and, from now on, the tool's calls whose argument matches (docs/rules.md); refused with `rule_invalid` (why) and the question stays open. */
  z.object({ type: z.literal("approval"), callId: id, approved: z.boolean(), remember: z.boolean().optional(), rule: RuleSpecSchema.optional() }),
  z.object({
    type: z.literal("elicitation_response"),
    requestId: id,
    action: z.enum(["accept", "decline", "cancel"]),
    content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  }),
  z.object({ type: z.literal("set_servers"), enabled: z.array(z.string().max(64)).max(100) }),
  /** Takes back an "Always allow" of this session: `tool` is `{server}.{tool}`; answered with `always_allowed`. */
  z.object({ type: z.literal("revoke_always"), tool: z.string().min(1).max(400) }),
  /** Takes back an argument rule of this chat (`id` from `always_allowed.rules`); answered with `always_allowed`, or `rule_unknown`. */
  z.object({ type: z.literal("revoke_rule"), id }),
  /** Cancels the task a tool call started (MCP Tasks: tasks/cancel at its server); answered by its `task` frame, or `unknown_task`. */
  z.object({ type: z.literal("cancel_task"), callId: id }),
  /** Applies one of the owner's presets to this chat (docs/presets.md). */
  z.object({ type: z.literal("apply_preset"), id }),
  /** Chooses the session's model (and its settings) from the next turn on; answered with `model`, or `model_not_available`. */
  ModelChoiceSchema.extend({ type: z.literal("set_model") }),
  z.object({ type: z.literal("reset") }),
  /** Whether this page is visible (sent on open and on every visibilitychange): a person with no visible page is pushed (docs/notifications.md). */
  z.object({ type: z.literal("visibility"), visible: z.boolean() }),
  // Heartbeat; the exact bytes {"type":"ping"} are answered by the runtime without waking the object.
  z.object({ type: z.literal("ping") }).loose(),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

export const UsageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number() });
export type Usage = z.infer<typeof UsageSchema>;

/** A person on the wire (docs/people.md): their key (a hash of their id; ids never go out) and display name. */
export const PersonRefSchema = z.object({ key: z.string(), name: z.string() });
export type PersonRef = z.infer<typeof PersonRefSchema>;
const RoleSchema = z.enum(["viewer", "participant", "approver", "owner"]);

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
const MediaSchema = z.object({ type: z.enum(["image", "audio"]), mimeType: z.string(), data: z.string() });

const ProgressSchema = z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() });

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

export const ServerMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("connection"),
    sessionId: z.string(),
    model: z.object({ provider: z.string(), model: z.string() }).nullable(),
    /** Set when no model is configured: says how to set one. */
    notice: z.string().optional(),
    toolApproval: z.boolean(),
    /** Who this socket is in the chat (docs/people.md): the page hides what the role may not do. */
    you: PersonRefSchema.extend({ role: RoleSchema }).optional(),
  }),
  z.object({
    type: z.literal("history"),
    entries: z.array(HistoryEntrySchema),
    /** Model tokens per turn (by turn id) of the turns in `entries`, kept with the history so a reload shows them. */
    usage: z.record(z.string(), UsageSchema).optional(),
    /** The session's tokens in all, turns not sent included. */
    usageTotal: UsageSchema.optional(),
    /**
     * The newest part of the history only (within a byte budget): older entries exist, and
     * GET /sessions/{id}/history?before={older} returns the part before this one.
     */
    older: z.number().int().optional(),
    /** For each shown turn that has other versions: which one of how many, and all of them in order. */
    branches: z.record(z.string(), z.object({ index: z.number().int(), count: z.number().int(), siblings: z.array(z.string()) })).optional(),
  }),
  z.object({ type: z.literal("entry"), entry: HistoryEntrySchema }),
  z.object({ type: z.literal("text"), turnId: z.string(), messageId: z.string(), delta: z.string() }),
  z.object({
    type: z.literal("status"),
    turnId: z.string(),
    callId: z.string(),
    server: z.string(),
    tool: z.string(),
    state: z.enum(["processing", "progress", "complete", "error"]),
    arguments: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    error: z.string().optional(),
    durationMs: z.number().optional(),
    progress: ProgressSchema.optional(),
    /** With `complete`: the result's images and audio for the page to show; history entries keep only a note. */
    media: z.array(MediaSchema).optional(),
  }),
  z.object({
    type: z.literal("approval_request"),
    turnId: z.string().nullable(),
    callId: z.string(),
    kind: z.enum(["tool", "sampling"]),
    server: z.string(),
    tool: z.string().optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** For sampling: what the server wants the model to answer. */
    prompt: z.string().optional(),
    /** A tool call an MCP App asks for (framed in the page), not the model. */
    fromApp: z.boolean().optional(),
  }),
  /** `via`: answered from a push notification's action (docs/notifications.md), not a page. */
  /** `by`: who answered (the owner or an approver, docs/people.md). */
  z.object({
    type: z.literal("approval_resolved"),
    callId: z.string(),
    approved: z.boolean(),
    via: z.literal("notification").optional(),
    by: PersonRefSchema.optional(),
  }),
  z.object({
    type: z.literal("elicitation_request"),
    requestId: z.string(),
    server: z.string(),
    message: z.string(),
    /** Form mode (the default): the fields asked for. */
    schema: z.record(z.string(), z.unknown()).optional(),
    /** URL mode: the page opens `url` (http or https only) once the person agrees; `host` is what it shows first. */
    mode: z.literal("url").optional(),
    url: z.string().optional(),
    host: z.string().optional(),
  }),
  /** A URL-mode question the person agreed to: its server is awaited ("waiting for host…") until `elicitation_resolved`. */
  z.object({ type: z.literal("elicitation_waiting"), requestId: z.string() }),
  z.object({ type: z.literal("elicitation_resolved"), requestId: z.string() }),
  z.object({ type: z.literal("servers"), servers: z.array(SessionServerSchema) }),
  /** The tools this session runs without asking because the user chose "Always allow" (`{server}.{tool}`); sent on connect and whenever it changes. */
  /** `rules`: the argument rules that apply in this chat (its own, then the person's for all chats). */
  z.object({ type: z.literal("always_allowed"), tools: z.array(z.string()), rules: z.array(RuleViewSchema).optional() }),
  /** The session's model and settings (null: no model at all); sent on connect and whenever it changes. */
  z.object({ type: z.literal("model"), choice: ModelChoiceSchema.nullable(), notice: z.string().optional() }),
  z.object({ type: z.literal("turn_start"), turnId: z.string() }),
  z.object({
    type: z.literal("turn_end"),
    turnId: z.string(),
    reason: z.enum(["complete", "cancelled", "error", "max_steps", "no_model"]),
    usage: UsageSchema.optional(),
  }),
  z.object({ type: z.literal("error"), code: z.enum(WS_ERROR_CODE_NAMES), message: z.string(), turnId: z.string().optional() }),
  z.object({ type: z.literal("pong") }),
  /**
   * Who is in this chat (docs/people.md): on connect and whenever someone comes, goes, hides the
   * page or changes role. `invited` (not joined yet) and people not here go only to the owner.
   */
  z.object({
    type: z.literal("people"),
    owner: PersonRefSchema.extend({ here: z.boolean(), visible: z.boolean() }),
    members: z.array(PersonRefSchema.extend({ role: RoleSchema, here: z.boolean(), visible: z.boolean(), invited: z.boolean() })),
  }),
  /** This socket's person got a new role (the owner changed it): it applies from their next frame. */
  z.object({ type: z.literal("you"), key: z.string(), name: z.string(), role: RoleSchema }),
  /** A task a tool call started (MCP Tasks): its state whenever it changes, and on connect for every task the session holds. */
  z.object({
    type: z.literal("task"),
    callId: z.string(),
    server: z.string(),
    tool: z.string(),
    status: z.enum(["working", "input_required", "completed", "failed", "cancelled"]),
    message: z.string().optional(),
  }),
  /** An attached resource changed at its server (a subscription); later turns use the new contents. */
  z.object({ type: z.literal("resource_updated"), server: z.string(), uri: z.string() }),
  /** The chat's schedules, to its owner's pages: on connect and whenever one is made, runs, pauses or goes. */
  z.object({ type: z.literal("schedules"), items: z.array(ScheduleViewSchema) }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

/** The one place anything becomes a wire message. */
export const toWire = {
  /** An error as the page sees it: a typed error's public form, anything else a bare "internal error". */
  error(error: unknown, turnId?: string): Extract<ServerMessage, { type: "error" }> {
    const pub = error instanceof EdgehostError ? error.toPublic() : { code: "internal" as const, message: "internal error" };
    // An HTTP-only code (error-codes.ts) has no meaning on the socket: the page gets the message as an internal error.
    return { type: "error", code: isWsErrorCode(pub.code) ? pub.code : "internal", message: pub.message, ...(turnId ? { turnId } : {}) };
  },
  /** A history entry without what only the Worker may see (a provider's private data, e.g. Gemini thought signatures). */
  entry<T extends HistoryEntry>(entry: T): HistoryEntry {
    if (!entry.toolCalls) return entry;
    return { ...entry, toolCalls: entry.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) };
  },
};

export type ParsedFrame = { ok: true; message: ClientMessage } | { ok: false; code: WsErrorCode; message: string };

/** Parses one client frame; never throws. */
export function parseClientFrame(frame: string | ArrayBuffer): ParsedFrame {
  if (typeof frame !== "string") return { ok: false, code: "bad_frame", message: "binary frames are not supported: send JSON text" };
  // length counts UTF-16 units; a frame of CJK text is up to three times as many bytes.
  if (frame.length > MAX_FRAME_BYTES || (frame.length * 3 > MAX_FRAME_BYTES && new TextEncoder().encode(frame).length > MAX_FRAME_BYTES)) {
    return { ok: false, code: "frame_too_large", message: `frame larger than ${MAX_FRAME_BYTES} bytes` };
  }
  let data: unknown;
  try {
    data = JSON.parse(frame);
  } catch {
    return { ok: false, code: "bad_json", message: "frame is not valid JSON" };
  }
  const parsed = ClientMessageSchema.safeParse(data);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  const rawType = typeof data === "object" && data !== null && "type" in data ? (data as { type: unknown }).type : undefined;
  if (rawType !== undefined && typeof rawType !== "string") return { ok: false, code: "bad_message", message: "type: expected a string" };
  const type = typeof rawType === "string" ? rawType.slice(0, 40) : undefined;
  const known = ClientMessageSchema.options.map((o) => o.shape.type.value);
  if (type !== undefined && !known.includes(type as never)) {
    return { ok: false, code: "unknown_type", message: `unknown message type "${type}" (expected one of ${known.join(", ")})` };
  }
  return { ok: false, code: "bad_message", message: `${type ?? "message"}: ${where}${issue?.message ?? "invalid"}` };
}
