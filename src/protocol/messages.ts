// Every WebSocket message between the page and a chat session, as zod schemas:
// the single source of truth for the protocol (docs/websocket-protocol.md documents it).
// What the page sends is in client-messages.ts, the pieces both name in wire-parts.ts; this
// file holds what a session sends and re-exports the rest, so callers import one module.
import { z } from "zod";
import { isWsErrorCode, WS_ERROR_CODE_NAMES } from "../shared/error-codes";
import { EdgehostError } from "../shared/errors";
import {
  type HistoryEntry,
  HistoryEntrySchema,
  MediaSchema,
  ModelChoiceSchema,
  PersonRefSchema,
  ProgressSchema,
  RoleSchema,
  RuleViewSchema,
  ScheduleViewSchema,
  SessionServerSchema,
  UsageSchema,
} from "./wire-parts";

export * from "./client-messages";
export * from "./wire-parts";

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
