// A conversation brought in from an export (src/http/import.ts) written into a new,
// empty session's history: each user message starts a turn on one line of the turn tree,
// with fresh turn ids. Tool calls and results come in as the cards they were; the
// assistant's tool requests (toolCalls) are left out, so a model continuing the
// conversation sees the words, never a call it did not make (prune.ts skips a result
// without its request). Attached resources and a prompt's origin are left out too: they
// name the exporter's servers.
import { z } from "zod";
import type { HistoryStore, NewEntry } from "./history";

/** Longest text of one imported entry (a stored row holds 2 MB; history.ts cuts larger values too). */
export const MAX_IMPORT_TEXT = 256 * 1024;
export const MAX_IMPORT_ENTRIES = 1_000;
const name = z.string().max(200);

export const ImportedEntrySchema = z.object({
  kind: z.enum(["user", "assistant", "tool_call", "tool_result", "notice", "error", "summary"]),
  turnId: z.string().max(200).nullable().optional(),
  text: z.string().max(MAX_IMPORT_TEXT, `at most ${MAX_IMPORT_TEXT} characters`).optional(),
  callId: name.optional(),
  server: name.optional(),
  tool: name.optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  error: z.string().max(MAX_IMPORT_TEXT, `at most ${MAX_IMPORT_TEXT} characters`).optional(),
  durationMs: z.number().nonnegative().optional(),
  model: name.optional(),
  partial: z.boolean().optional(),
  summaryOf: z.object({ turns: z.number().int().nonnegative(), upTo: z.string().max(200) }).optional(),
});
export type ImportedEntry = z.infer<typeof ImportedEntrySchema>;
export const ImportedEntriesSchema = z.array(ImportedEntrySchema).max(MAX_IMPORT_ENTRIES, `at most ${MAX_IMPORT_ENTRIES} entries per conversation`);

/** Writes `entries` into an empty store; how many were written. */
export function importInto(store: HistoryStore, entries: ImportedEntry[]): number {
  const turns = new Map<string, string>();
  let turn: string | null = null;
  let written = 0;
  for (const e of entries) {
    if (e.kind === "user") {
      const fresh = crypto.randomUUID();
      store.tree.begin(fresh, turn);
      if (e.turnId) turns.set(e.turnId, fresh);
      turn = fresh;
    }
    const entry = toEntry(e, turn, turns);
    if (!entry) continue;
    store.append(entry);
    written++;
  }
  return written;
}

function toEntry(e: ImportedEntry, turnId: string | null, turns: Map<string, string>): NewEntry | undefined {
  switch (e.kind) {
    case "user":
    case "notice":
    case "error":
      return { turnId, kind: e.kind, text: e.text ?? "" };
    case "assistant":
      return e.text ? { turnId, kind: "assistant", text: e.text, ...(e.model ? { model: e.model } : {}), ...(e.partial ? { partial: true } : {}) } : undefined;
    case "summary": {
      // A summary stands in for the turns up to one of this conversation's: kept when that turn came in, else a plain notice.
      const upTo = e.summaryOf ? turns.get(e.summaryOf.upTo) : undefined;
      return upTo && e.summaryOf
        ? { turnId, kind: "summary", text: e.text ?? "", summaryOf: { turns: e.summaryOf.turns, upTo } }
        : { turnId, kind: "notice", text: `Summary of earlier turns: ${e.text ?? ""}` };
    }
    case "tool_call":
      return { turnId, kind: "tool_call", callId: e.callId ?? crypto.randomUUID(), server: e.server ?? "", tool: e.tool ?? "", arguments: e.arguments ?? {} };
    case "tool_result":
      return {
        turnId,
        kind: "tool_result",
        callId: e.callId ?? crypto.randomUUID(),
        server: e.server ?? "",
        tool: e.tool ?? "",
        durationMs: e.durationMs ?? 0,
        ...(e.error !== undefined ? { error: e.error } : { result: e.result }),
      };
  }
}
