// What the page sends a chat session, as zod schemas, and the one parser of those frames:
// anything that fails gets an `error` frame naming what was wrong, and the socket stays open
// (docs/websocket-protocol.md).
import { z } from "zod";
import type { WsErrorCode } from "../shared/error-codes";
import { AttachmentRefSchema, ModelChoiceSchema, RuleSpecSchema } from "./wire-parts";

export const MAX_FRAME_BYTES = 64 * 1024;
export const MAX_MESSAGE_CHARS = 16_000;

const id = z.string().min(1).max(128);

/** Frame bound only; the session's own limit (src/session/attachments.ts) is lower and answered with a typed error. */
const attachments = z.array(AttachmentRefSchema).max(64).optional();
/** Files uploaded to this session (POST /sessions/{id}/files) by id; frame bound only, UPLOAD_MAX_FILES is the session's limit. */
const files = z.array(z.string().min(1).max(64)).max(64).optional();

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
