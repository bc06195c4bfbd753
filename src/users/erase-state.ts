// "Delete my data" is final (issue 33): how the user's account (UserAccount.ts) keeps an
// erase from being outlived by a write that raced it. Three parts, all in the account's
// own SQLite, so an eviction or restart mid-erase forgets none of them:
// - the mark: while an erase runs, a write request of the Worker (a new chat, an upload, an
//   import, a share, a server, a provider, a pairing) is refused with `account_erasing` before
//   it does anything (src/http/account-writes.ts), and so is a turn's admission;
// - leases: every write request holds one from before its first write until it answered; the
//   erase waits for those open when it began, so a write admitted just before (its R2 object,
//   its snapshot, its imported history stored after its listing) has finished and is deleted
//   with the rest, never after;
// - the generation, counted up by each erase: a turn learns it with its admission and its
//   touch of the chat list carries it, so a turn admitted before the erase cannot list its
//   chat again after it (the account ignores a stale generation); the erase itself cancels
//   and waits for the turns of the chats it deletes (TurnRunner.drop).
// When the erase ends the mark goes and the person starts afresh with an empty account.
import { EdgehostError } from "../shared/errors";

/** The one message of the refusal: the Worker knows it again after it crossed an RPC (which keeps only an error's message). */
export const ACCOUNT_ERASING_MESSAGE =
  "Your data is being deleted (Delete my data): nothing new is saved until that finishes. If this lasts, choose Delete my data again.";

export class AccountErasingError extends EdgehostError {
  readonly code = "account_erasing";
  constructor() {
    super(ACCOUNT_ERASING_MESSAGE);
  }
}

/** The refusal as a turn's or upload's admission says it (src/users/spend-ledger.ts). */
export const ERASING_DECISION = { ok: false, code: "account_erasing", message: ACCOUNT_ERASING_MESSAGE } as const;

/** How long a write request's lease counts if it never says it ended (a Worker cut off mid-request): an erase waits no longer. */
export const WRITE_LEASE_MS = 60_000;

type StateRow = { generation: number; erasing: number };

export class EraseState {
  private state: StateRow;
  /** Wake the erases waiting for leases (in memory: after a restart an erase's own wait makes a new one). */
  private readonly waiting = new Set<() => void>();

  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS erase_state (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, erasing INTEGER NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS write_leases (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)");
    sql.exec("INSERT INTO erase_state (id, generation, erasing) VALUES (1, 0, 0) ON CONFLICT(id) DO NOTHING");
    // Read once: this object is the only writer, and every write path asks.
    this.state = sql.exec<StateRow>("SELECT generation, erasing FROM erase_state WHERE id = 1").one();
  }

  get generation(): number {
    return this.state.generation;
  }

  get erasing(): boolean {
    return this.state.erasing !== 0;
  }

  /** Throws the typed refusal while an erase runs. */
  refuse(): void {
    if (this.erasing) throw new AccountErasingError();
  }

  /** Whether a write admitted under `generation` may still land: no erase runs and none began since. */
  current(generation: number | undefined): boolean {
    return !this.erasing && (generation === undefined || generation === this.state.generation);
  }

  /** A write request begins: its lease id, or undefined (refused) while an erase runs. */
  openLease(now: number): string | undefined {
    if (this.erasing) return undefined;
    const id = crypto.randomUUID();
    this.sql.exec("INSERT INTO write_leases (id, expires_at) VALUES (?, ?)", id, now + WRITE_LEASE_MS);
    return id;
  }

  closeLease(id: string): void {
    this.sql.exec("DELETE FROM write_leases WHERE id = ?", id);
    for (const wake of this.waiting) wake();
  }

  /** Marks the erase (refusing writes from now on) and moves the generation on; the erase's token. */
  begin(): number {
    const generation = this.state.generation + 1;
    this.sql.exec("UPDATE erase_state SET generation = ?, erasing = 1 WHERE id = 1", generation);
    this.state = { generation, erasing: 1 };
    return generation;
  }

  /** Resolves once every write request admitted before the erase ended (or its lease ran out). */
  async leasesSettled(): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.sql.exec("DELETE FROM write_leases WHERE expires_at <= ?", now);
      const next = this.sql.exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM write_leases").one().at;
      if (next === null) return;
      // Woken by the next lease to close, or by the soonest expiry: an event, not a poll.
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, next - now);
        this.waiting.add(wake);
      });
    }
  }

  /** The erase whose token is `generation` finished: writes are open again, unless a later erase began meanwhile (it ends the mark). */
  end(generation: number): void {
    if (generation !== this.state.generation) return;
    this.sql.exec("UPDATE erase_state SET erasing = 0 WHERE id = 1");
    this.state = { generation, erasing: 0 };
  }
}
