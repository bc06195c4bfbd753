// The model's view of the conversation: the current path's entries after the newest
// summary on it (with that summary for the system prompt), grouped by turn; kept
// between turns and added to: each turn
// of the current path is built into model messages once, with its token estimate,
// and built again only when its entries change (a turn that ran since, a version
// switched to) or when it has attached resources (their contents may have changed at
// the server). Before, every turn rebuilt and re-measured the whole conversation
// twice (compaction's check and the turn itself): at 1,000 entries that was most of
// what a warm turn cost beyond a short conversation's (issue 27). Once someone besides the
// owner has spoken in the chat, each person's message goes under their name (speakers.ts):
// a turn kept unlabelled is built again then.
import type { ChatMessage, UserPart } from "../llm/provider";
import { estimateTokens, historyToTurns } from "../orchestrator/prune";
import type { HistoryStore, StoredEntry } from "./history";
import { groupBy } from "../shared/group-by";
import { labelled, type Owner, othersAmong, othersSpoke, type Spoken } from "./speakers";

export interface ModelHistory {
  /** The entries the model gets, in order. */
  entries: StoredEntry[];
  /** The newest summary on the path, standing in for the turns before it. */
  summary?: StoredEntry;
  /** The turns of `entries`, in path order (entries of no turn left out). */
  turns: { turnId: string; entries: StoredEntry[] }[];
  /** Someone besides the owner sent a message in the chat (any version, summarized turns included). */
  othersSpoke: boolean;
}

export function modelHistory(store: HistoryStore, ownerKey?: string): ModelHistory {
  const path = store.tree.path();
  const position = new Map(path.map((turn, i) => [turn, i]));
  const all = store.entries();
  const summary = all.filter((e) => e.kind === "summary" && e.summaryOf && position.has(e.summaryOf.upTo)).pop();
  const cut = summary?.summaryOf ? (position.get(summary.summaryOf.upTo) ?? -1) : -1;
  const entries = all.filter((e) => e.kind !== "summary" && (e.turnId === null || (position.get(e.turnId) ?? -1) > cut));
  const byTurn = groupBy(entries, (e) => e.turnId ?? undefined);
  const turns = path.filter((t) => byTurn.has(t)).map((turnId) => ({ turnId, entries: byTurn.get(turnId) ?? [] }));
  // Any version's, however long ago (the store keeps every author): once someone else spoke in the chat, its labels stay.
  return { entries, summary, turns, othersSpoke: othersAmong(store.authors(), ownerKey) };
}

/** One turn as the model gets it. */
export interface BuiltTurn {
  turnId: string;
  messages: ChatMessage[];
  tokens: number;
}

interface Kept {
  /** The entries it was built from (by identity: an entry once stored never changes). */
  first: StoredEntry | undefined;
  last: StoredEntry | undefined;
  count: number;
  /** Built with each person's message under their name. */
  labelled: boolean;
  turn: BuiltTurn;
}

export class ModelView {
  private kept = new Map<string, Kept>();
  private memo?: { revision: number; leaf: string | undefined; history: ModelHistory };

  constructor(
    private readonly store: HistoryStore,
    /** A user entry's attached contents (resources, files), if any. */
    private readonly attachedParts?: (entry: StoredEntry) => UserPart[] | undefined | Promise<UserPart[] | undefined>,
    /** The chat's owner (their key tells their messages from others'); absent: no labels. */
    private readonly owner?: () => Owner,
  ) {}

  /** The path's entries after its newest summary, grouped by turn (compaction-step.ts), until the history changes. */
  history(): ModelHistory {
    const revision = this.store.revision;
    const leaf = this.store.tree.leaf();
    if (this.memo?.revision !== revision || this.memo.leaf !== leaf) this.memo = { revision, leaf, history: modelHistory(this.store, this.owner?.().key) };
    return this.memo.history;
  }

  /** Whether messages go under their authors' names: someone besides the owner spoke in the chat or in `pending` (a turn's opening not stored yet). */
  labelled(pending: readonly Spoken[] = []): boolean {
    const owner = this.owner?.();
    return owner !== undefined && (this.history().othersSpoke || othersSpoke(pending, owner.key));
  }

  /** The owner, when the stored turns go under their authors' names (compaction's summary keeps them); else undefined. */
  speakers(): Owner | undefined {
    return this.labelled() ? this.owner?.() : undefined;
  }

  /** Every turn of the view, built (attached contents joined in) and measured; `pending`: as for labelled(). */
  async turns(pending: readonly Spoken[] = []): Promise<BuiltTurn[]> {
    const view = this.history();
    const label = this.labelled(pending);
    const live = new Set(view.turns.map((t) => t.turnId));
    // Turns that left the view (summarized, another version shown) are let go.
    for (const turnId of this.kept.keys()) if (!live.has(turnId)) this.kept.delete(turnId);
    // Kept turns are taken as they are; only the others wait (a promise per turn of a long conversation cost a warm turn more than its build).
    const turns = view.turns.map(({ turnId, entries }): BuiltTurn | Promise<BuiltTurn> => {
      const kept = this.kept.get(turnId);
      if (kept && kept.labelled === label && kept.count === entries.length && kept.first === entries[0] && kept.last === entries[entries.length - 1])
        return kept.turn;
      return this.build(turnId, entries, label);
    });
    return Promise.all(turns);
  }

  private async build(turnId: string, entries: StoredEntry[], label: boolean): Promise<BuiltTurn> {
    const { entries: withParts, attached } = await this.withParts(entries);
    const turn = build(turnId, this.named(withParts, label));
    // Attached contents are read again each time: a resource may have changed since.
    if (!attached) this.kept.set(turnId, { first: entries[0], last: entries[entries.length - 1], count: entries.length, labelled: label, turn });
    return turn;
  }

  private named(entries: StoredEntry[], label: boolean): StoredEntry[] {
    const owner = this.owner?.();
    return label && owner ? labelled(entries, owner) : entries;
  }

  /**
   * A turn not stored yet (its opening is written after the model request: deferred-opening.ts),
   * built as a stored one would be; not kept, since its stored entries will be other objects.
   */
  async unstored(turnId: string, entries: StoredEntry[]): Promise<BuiltTurn> {
    return build(turnId, this.named((await this.withParts(entries)).entries, this.labelled(entries)));
  }

  /** Drops everything kept (the history was cleared). */
  forget(): void {
    this.kept.clear();
    this.memo = undefined;
  }

  /** The entries with their attached contents; `attached` when any had some (files read from R2 take an await). */
  private async withParts(entries: StoredEntry[]): Promise<{ entries: StoredEntry[]; attached: boolean }> {
    const parts = this.attachedParts;
    if (!parts) return { entries, attached: false };
    let attached = false;
    const out = await Promise.all(
      entries.map(async (e) => {
        const found = e.kind === "user" ? await parts(e) : undefined;
        if (!found) return e;
        attached = true;
        return { ...e, parts: found };
      }),
    );
    return { entries: out, attached };
  }
}

function build(turnId: string, entries: StoredEntry[]): BuiltTurn {
  const messages = historyToTurns(entries).flat();
  return { turnId, messages, tokens: messages.reduce((n, m) => n + estimateTokens(m), 0) };
}
