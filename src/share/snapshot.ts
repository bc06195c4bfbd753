// What a shared link shows: a snapshot of a conversation as its owner saw it when they
// shared it (the current path of its history, tool cards included), made from the wire
// entries the page gets. Only what a reader needs is kept: no session or turn id, no
// resource URIs of attachments (they can name the owner's files and servers), no file
// ids (a file's name and size are shown, its bytes stay its owner's), no provider data; each entry's large parts are cut so a snapshot fits one stored value.
import { z } from "zod";
import type { HistoryEntry } from "../protocol/messages";

/** Room for one snapshot (a Durable Object's stored value holds 2 MB). */
export const MAX_SNAPSHOT_CHARS = 1_500_000;
const MAX_PART_CHARS = 64 * 1024;

export const SnapshotEntrySchema = z.object({
  /** A tool call carries its result (or error): one card, as the page shows it. */
  kind: z.enum(["user", "assistant", "tool_call", "notice", "error", "summary"]),
  text: z.string().optional(),
  server: z.string().optional(),
  tool: z.string().optional(),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  /** A tool call that got its result (or error); false when it never did (cancelled, interrupted). */
  done: z.boolean().optional(),
  model: z.string().optional(),
  /** Names of the resources a message attached (their content stays out). */
  attachments: z.array(z.string()).optional(),
  /** The files from the owner's computer a message carried: named, never linked (they are served to their owner only). */
  files: z.array(z.object({ name: z.string(), kind: z.string(), size: z.number() })).optional(),
  createdAt: z.number(),
});
export type SnapshotEntry = z.infer<typeof SnapshotEntrySchema>;

export const SnapshotSchema = z.object({
  title: z.string().nullable(),
  sharedAt: z.number(),
  entries: z.array(SnapshotEntrySchema),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

/** A value cut to about MAX_PART_CHARS of JSON: text is cut, anything larger is replaced by a note. */
function bounded(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (typeof value === "string") return value.length > MAX_PART_CHARS ? `${value.slice(0, MAX_PART_CHARS)}… [cut for sharing]` : value;
  const json = JSON.stringify(value) ?? "";
  if (json.length <= MAX_PART_CHARS) return value;
  // A tool result's content blocks: their text kept (cut), media left out.
  if (Array.isArray(value)) {
    const text = value
      .map((block) => (typeof block === "object" && block !== null && "text" in block && typeof block.text === "string" ? block.text : ""))
      .join("\n");
    return `${text.slice(0, MAX_PART_CHARS)}… [cut for sharing]`;
  }
  return "[too large to share]";
}

export function snapshotOf(title: string | null, entries: HistoryEntry[], now = Date.now()): Snapshot {
  const results = new Map(entries.flatMap((e) => (e.kind === "tool_result" && e.callId ? [[e.callId, e] as const] : [])));
  const calls = new Set(entries.flatMap((e) => (e.kind === "tool_call" && e.callId ? [e.callId] : [])));
  const kept = entries.flatMap((e): SnapshotEntry[] => {
    // A result is shown in its call's card; one whose call is not on this path gets a card of its own.
    if (e.kind === "tool_result" && e.callId && calls.has(e.callId)) return [];
    const result = e.kind === "tool_call" && e.callId ? results.get(e.callId) : e.kind === "tool_result" ? e : undefined;
    const tool = e.kind === "tool_call" || e.kind === "tool_result";
    return [
      {
        kind: tool ? "tool_call" : (e.kind as Exclude<HistoryEntry["kind"], "tool_call" | "tool_result">),
        text: bounded(e.text) as string | undefined,
        server: e.server,
        tool: e.tool,
        arguments: e.kind === "tool_call" ? bounded(e.arguments ?? {}) : undefined,
        result: bounded(result?.result),
        error: bounded(result?.error) as string | undefined,
        done: tool ? result !== undefined : undefined,
        model: e.model,
        attachments: e.attachments?.map((a) => a.name ?? "a resource"),
        files: e.files?.map(({ name, kind, size }) => ({ name, kind, size })),
        createdAt: e.createdAt,
      },
    ];
  });
  return { title, sharedAt: now, entries: kept };
}
