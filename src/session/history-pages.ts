// The history as the page gets it: the newest window of the current path on
// connect (history-window.ts), older windows on request, one entry whole, each with
// the tokens of the turns it shows, the versions of those turns, and the session's
// running total of tokens.
import { toWire, type HistoryEntry, type Usage } from "../protocol/messages";
import type { HistoryStore, StoredEntry } from "./history";
import { historyWindow, WINDOW_ENTRIES } from "./history-window";
import type { BranchPosition } from "./turn-tree";

export interface HistoryPage {
  entries: HistoryEntry[];
  /** Present when older entries exist: pass it as `before` to get them. */
  older?: number;
  usage: Record<string, Usage>;
  /** Every turn's tokens in all (including turns not in this page). */
  usageTotal: Usage;
  branches?: Record<string, BranchPosition>;
}

/** Rows read at a time when paging back; other branches' rows are skipped. */
const SCAN_ROWS = WINDOW_ENTRIES * 2;

/** The newest window (no `before`), or the window just older than entry `before`. */
export function historyPage(store: HistoryStore, before?: number): HistoryPage {
  const onPath = pathFilter(store);
  let path: StoredEntry[];
  let more: boolean;
  if (before === undefined) {
    path = store.entries();
    const oldest = store.allEntries()[0];
    more = oldest !== undefined && store.before(oldest.seq, 1).length > 0;
  } else {
    // Back from `before` until a window's worth of this path's entries (or the start) is read.
    path = [];
    let from = before;
    more = false;
    for (;;) {
      const rows = store.before(from, SCAN_ROWS);
      path.unshift(...rows.filter(onPath));
      const first = rows[0];
      if (rows.length < SCAN_ROWS || !first) break;
      from = first.seq;
      if (path.length > WINDOW_ENTRIES) {
        more = true;
        break;
      }
    }
  }
  // A window holds at most WINDOW_ENTRIES, and looks one entry further back for where its first turn starts.
  const tail = path.length > WINDOW_ENTRIES + 1 ? path.slice(-(WINDOW_ENTRIES + 1)) : path;
  const window = historyWindow(
    tail.map((e) => toWire.entry(e)),
    more || tail.length < path.length,
  );
  const turns = new Set(window.entries.flatMap((e) => (e.turnId === null ? [] : [e.turnId])));
  if (before === undefined) {
    // The newest window also covers path turns with no entry yet (one just regenerated: its versions show at once).
    const pathTurns = store.tree.path();
    const first = window.entries.find((e) => e.turnId !== null)?.turnId;
    for (const turn of pathTurns.slice(first ? Math.max(0, pathTurns.indexOf(first)) : 0)) turns.add(turn);
  }
  const branches = store.tree.branches(turns);
  return {
    ...window,
    usage: store.usage(turns),
    usageTotal: store.usageTotal(),
    ...(Object.keys(branches).length > 0 ? { branches } : {}),
  };
}

/** The current path whole, unshortened, with the tokens of every replayed turn (any branch): the account's export. */
export function wholeHistory(store: HistoryStore): { entries: HistoryEntry[]; usage: Record<string, Usage> } {
  const turns = store.allEntries().flatMap((e) => (e.turnId === null ? [] : [e.turnId]));
  return { entries: store.entries().map((e) => toWire.entry(e)), usage: store.usage(turns) };
}

/** One entry whole, if it is on the conversation's current path (a window may have sent it shortened). */
export function fullEntry(store: HistoryStore, seq: number): HistoryEntry | undefined {
  const entry = store.entry(seq);
  return entry && pathFilter(store)(entry) ? toWire.entry(entry) : undefined;
}

function pathFilter(store: HistoryStore): (e: StoredEntry) => boolean {
  const path = new Set(store.tree.path());
  return (e) => e.turnId === null || path.has(e.turnId);
}
