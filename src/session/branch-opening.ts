// What a new version of a turn starts from (regenerate, edit): the turn's opening user
// entries copied (text, attachments, which prompt), or for an edit its first message
// with the new text. Only the leading user entries are copied: what the model said is
// what a new version replaces.
import type { PersonRef, ServerMessage } from "../protocol/messages";
import type { HistoryStore } from "./history";
import type { OpeningEntry, TurnOpening } from "./prompt-opening";

type ErrorFrame = Extract<ServerMessage, { type: "error" }>;

/**
 * `editor`: who edits (only the owner may); an edited message is theirs, not its first
 * author's, so the model never reads the owner's words under another person's name (speakers.ts).
 */
export function branchOpening(store: HistoryStore, turnId: string, editedText?: string, editor?: PersonRef): TurnOpening | undefined {
  if (!store.tree.has(turnId)) return undefined;
  const entries = store.allEntries().filter((e) => e.turnId === turnId);
  const opening: OpeningEntry[] = [];
  for (const entry of entries) {
    if (entry.kind !== "user") break;
    const { seq: _seq, createdAt: _createdAt, turnId: _turnId, ...rest } = entry;
    opening.push(rest);
  }
  const first = opening[0];
  if (!first) return undefined;
  if (editedText === undefined) return { entries: opening, title: first.text ?? "" };
  const { author: _author, ...rest } = first;
  return { entries: [{ ...rest, text: editedText, ...(editor ? { author: editor } : {}) }], title: editedText };
}

export function unknownTurn(turnId: string): ErrorFrame {
  return { type: "error", code: "unknown_turn", message: `this session has no turn "${turnId}" with a message to answer` };
}

export const TURN_RUNNING: ErrorFrame = { type: "error", code: "turn_in_progress", message: "A turn is still running: wait for it to end or cancel it." };
