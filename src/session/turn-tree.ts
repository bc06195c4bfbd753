// A session's turns as a tree: each turn follows a parent turn (the one before it when
// it started). Regenerating an answer or editing a sent message starts a sibling of that
// turn (the same parent), so the old version stays; the session shows, and the model
// sees, one path: from the current leaf up to the root. Switching to a sibling makes
// the newest turn below it the leaf. Kept in SQLite beside the history.

import { groupBy } from "../shared/group-by";

/** What the tree needs of the history store it lives beside (history.ts). */
export interface TreeStorage {
  getSetting<T>(key: string): T | undefined;
  setSetting(key: string, value: unknown): void;
  /** The turns of the stored history, in the order they began. */
  turnIdsInOrder(): string[];
}
const LEAF_KEY = "leafTurn";

/** Where a turn on the current path stands among its siblings (only turns that have some). */
export interface BranchPosition {
  /** 1-based. */
  index: number;
  count: number;
  siblings: string[];
}

type Row = { turn_id: string; parent: string | null; created_at: number };

export class TurnTree {
  /** turn → parent, every turn of the session (a few per conversation step: small). */
  private parents?: Map<string, string | null>;
  private order?: Map<string, number>;
  /** parent → children in order, and the path of the last leaf asked about: read at every connect and turn. */
  private children?: Map<string | null, string[]>;
  private pathOf?: { leaf: string | undefined; path: string[] };

  constructor(
    private readonly sql: SqlStorage,
    private readonly store: TreeStorage,
  ) {
    sql.exec("CREATE TABLE IF NOT EXISTS turn_tree (turn_id TEXT PRIMARY KEY, parent TEXT, created_at INTEGER NOT NULL)");
  }

  private load(): Map<string, string | null> {
    if (this.parents) return this.parents;
    let rows = this.sql.exec<Row>("SELECT turn_id, parent, created_at FROM turn_tree ORDER BY created_at, rowid").toArray();
    if (rows.length === 0) rows = this.backfill();
    this.parents = new Map(rows.map((r) => [r.turn_id, r.parent]));
    this.order = new Map(rows.map((r, i) => [r.turn_id, i]));
    return this.parents;
  }

  /** A session from before branches: its turns in order, one line. */
  private backfill(): Row[] {
    const turns = this.store.turnIdsInOrder();
    const rows: Row[] = turns.map((turn_id, i) => ({ turn_id, parent: i === 0 ? null : (turns[i - 1] ?? null), created_at: i }));
    for (const row of rows) this.sql.exec("INSERT INTO turn_tree (turn_id, parent, created_at) VALUES (?, ?, ?)", row.turn_id, row.parent, row.created_at);
    if (rows.length > 0) this.store.setSetting(LEAF_KEY, rows[rows.length - 1]?.turn_id);
    return rows;
  }

  leaf(): string | undefined {
    this.load();
    return this.store.getSetting<string>(LEAF_KEY);
  }

  has(turnId: string): boolean {
    return this.load().has(turnId);
  }

  parentOf(turnId: string): string | null {
    return this.load().get(turnId) ?? null;
  }

  /** A new turn after `parent` (null: the first of the conversation); it becomes the leaf. */
  begin(turnId: string, parent: string | null): void {
    const parents = this.load();
    const at = Date.now();
    this.sql.exec("INSERT OR IGNORE INTO turn_tree (turn_id, parent, created_at) VALUES (?, ?, ?)", turnId, parent, at);
    if (!parents.has(turnId)) {
      parents.set(turnId, parent);
      this.order?.set(turnId, this.order.size);
      this.children = undefined;
    }
    this.store.setSetting(LEAF_KEY, turnId);
  }

  /** The turns from the root to the leaf. */
  path(): string[] {
    const parents = this.load();
    const leaf = this.leaf();
    if (this.pathOf && this.pathOf.leaf === leaf) return this.pathOf.path.slice();
    const out: string[] = [];
    const seen = new Set<string>();
    for (let turn = leaf; turn !== undefined && !seen.has(turn); turn = parents.get(turn) ?? undefined) {
      seen.add(turn);
      out.unshift(turn);
    }
    this.pathOf = { leaf, path: out };
    return out.slice();
  }

  /** The turns with the same parent as `turnId`, oldest first (itself included). */
  siblings(turnId: string): string[] {
    const parents = this.load();
    const parent = parents.get(turnId) ?? null;
    return [...parents.entries()].filter(([, p]) => p === parent).map(([t]) => t);
  }

  /** Makes `turnId`'s branch current: its newest descendant, following the newest child at each step, becomes the leaf. */
  switchTo(turnId: string): boolean {
    const parents = this.load();
    if (!parents.has(turnId)) return false;
    let leaf = turnId;
    for (;;) {
      const children = [...parents.entries()].filter(([, p]) => p === leaf).map(([t]) => t);
      const newest = children.sort((a, b) => (this.order?.get(b) ?? 0) - (this.order?.get(a) ?? 0))[0];
      if (!newest) break;
      leaf = newest;
    }
    this.store.setSetting(LEAF_KEY, leaf);
    return true;
  }

  /** For each turn on the current path that has siblings: where it stands among them. */
  branches(turns?: Iterable<string>): Record<string, BranchPosition> {
    const children = this.childrenByParent();
    const out: Record<string, BranchPosition> = {};
    for (const turn of turns ?? this.path()) {
      const siblings = children.get(this.parentOf(turn)) ?? [turn];
      if (siblings.length > 1) out[turn] = { index: siblings.indexOf(turn) + 1, count: siblings.length, siblings: siblings.slice() };
    }
    return out;
  }

  /** Children grouped once: asking siblings() turn by turn made a long conversation's connect quadratic. */
  private childrenByParent(): Map<string | null, string[]> {
    if (this.children) return this.children;
    this.children = groupBy(
      this.load(),
      ([, parent]) => parent,
      ([turn]) => turn,
    );
    return this.children;
  }

  clear(): void {
    this.sql.exec("DELETE FROM turn_tree");
    this.store.setSetting(LEAF_KEY, undefined);
    this.parents = new Map();
    this.order = new Map();
    this.children = undefined;
    this.pathOf = undefined;
  }
}
