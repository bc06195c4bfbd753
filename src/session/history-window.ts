// The part of the history a page is sent at once: the newest entries of the
// current path that fit in a byte budget, starting at a turn's beginning, with big
// tool results and long texts shortened (the whole entry is one request away:
// GET /sessions/{id}/history/{seq}). The page asks for older windows as the reader
// scrolls up (GET /sessions/{id}/history?before={seq}). Replaying everything made a
// reconnect's frame 1 MB with 4 KB tool results and grow with every entry (issue 27).
import type { HistoryEntry } from "../protocol/messages";

/** Bytes of entries in one window: far under a frame's 256 KB whatever the history, and quick to send and show. */
export const WINDOW_BYTES = 48 * 1024;
/** At most this many entries in one window (many tiny entries cost the page more than their bytes). */
export const WINDOW_ENTRIES = 150;
/** A text tool result (or error) longer than this is sent as its beginning; the page fetches the rest on demand. */
export const BIG_RESULT_CHARS = 2_000;
/**
 * A structured result (an MCP content array kept from a direct call, an object) is cut only past this:
 * its beginning as text would no longer read as what it is (an image as base64 instead of its placeholder).
 */
export const BIG_STRUCTURED_CHARS = 32_000;
/** A message text longer than this is sent as its beginning. */
export const BIG_TEXT_CHARS = 24_000;

export interface HistoryWindow {
  entries: HistoryEntry[];
  /** Present when older entries exist: the `before` to ask for them with. */
  older?: number;
}

const encoder = new TextEncoder();
const bytesOf = (entry: HistoryEntry): number => {
  const json = JSON.stringify(entry);
  // Only non-ASCII text takes more bytes than characters.
  return /[^ -~\t\n\r]/.test(json) ? encoder.encode(json).byteLength : json.length;
};

/** The entry as a window carries it: big results and texts cut to their beginning, marked `cut` with their full size. */
export function shorten(entry: HistoryEntry): HistoryEntry {
  if (entry.kind === "tool_result") {
    const text = entry.error ?? (typeof entry.result === "string" ? entry.result : undefined);
    const full = text ?? JSON.stringify(entry.result ?? null);
    if (full.length <= (text === undefined ? BIG_STRUCTURED_CHARS : BIG_RESULT_CHARS)) return entry;
    const preview = `${full.slice(0, BIG_RESULT_CHARS)}…`;
    return entry.error !== undefined ? { ...entry, error: preview, cut: { chars: full.length } } : { ...entry, result: preview, cut: { chars: full.length } };
  }
  if (entry.text !== undefined && entry.text.length > BIG_TEXT_CHARS)
    return { ...entry, text: `${entry.text.slice(0, BIG_TEXT_CHARS)}…`, cut: { chars: entry.text.length } };
  return entry;
}

/**
 * The newest entries of `path` (oldest first) that fit the budget, shortened, starting
 * where a turn starts unless the newest turn alone is over the budget. `more` says
 * whether entries older than `path` exist (path is then itself a page of a longer history).
 */
export function historyWindow(path: readonly HistoryEntry[], more = false): HistoryWindow {
  const taken: HistoryEntry[] = [];
  let bytes = 0;
  let start = path.length;
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = shorten(path[i] as HistoryEntry);
    const size = bytesOf(entry) + 1;
    if (taken.length > 0 && (bytes + size > WINDOW_BYTES || taken.length >= WINDOW_ENTRIES)) break;
    taken.unshift(entry);
    bytes += size;
    start = i;
  }
  // A window starts where a turn starts, so a tool call is never shown without its card's start.
  let cut = 0;
  while (cut < taken.length && start + cut > 0 && sameTurn(path[start + cut - 1], taken[cut])) cut++;
  if (cut === taken.length) cut = 0; // one turn larger than the window: sent from where it fits
  const entries = taken.slice(cut);
  const first = entries[0];
  return { entries, ...(first && (start + cut > 0 || more) ? { older: first.seq } : {}) };
}

const sameTurn = (a: HistoryEntry | undefined, b: HistoryEntry | undefined): boolean =>
  a !== undefined && b !== undefined && a.turnId !== null && a.turnId === b.turnId && b.kind !== "user";
