// Model tokens a user's running turns and sampling answers may still spend: each holds
// its worst case before it starts and gives it back when its real count arrives, so
// turns started together cannot pass the daily budget by more than one turn's worth
// (they would if tokens were only counted afterwards). A holder that never reports (a
// session that crashed mid-turn) lets go when its hold expires.
//
// Kept in one key-value entry written without confirmation (spend-ledger.ts says why):
// a turn's admission then answers without waiting for a disk sync.
import { z } from "zod";

/** Longer than any turn (MAX_STEPS model calls with their tool calls); a hold past it is a lost one. */
export const HOLD_MS = 15 * 60_000;

const HOLDS_KEY = "spend:holds";
const HoldsSchema = z.record(z.string(), z.object({ tokens: z.number(), expiresAt: z.number() }));
type Holds = z.infer<typeof HoldsSchema>;

export class Reservations {
  constructor(private readonly storage: DurableObjectStorage) {
    moveHoldsFromSql(storage);
  }

  /** Tokens held by others than `except`, unexpired. */
  held(now: number, except?: string): number {
    let tokens = 0;
    for (const [id, hold] of Object.entries(this.read())) if (id !== except && hold.expiresAt > now) tokens += hold.tokens;
    return tokens;
  }

  hold(id: string, tokens: number, now: number): void {
    const holds = Object.fromEntries(Object.entries(this.read()).filter(([, hold]) => hold.expiresAt > now));
    holds[id] = { tokens: Math.max(0, Math.round(tokens)), expiresAt: now + HOLD_MS };
    this.write(holds);
  }

  release(id: string | undefined): void {
    if (!id) return;
    const holds = this.read();
    if (!(id in holds)) return;
    delete holds[id];
    this.write(holds);
  }

  private read(): Holds {
    const stored = HoldsSchema.safeParse(this.storage.kv.get(HOLDS_KEY));
    return stored.success ? stored.data : {};
  }

  private write(holds: Holds): void {
    void this.storage.put(HOLDS_KEY, holds, { allowUnconfirmed: true });
  }
}

/** Accounts made before the holds moved to key-value storage kept them in a table: carried over once. */
function moveHoldsFromSql(storage: DurableObjectStorage): void {
  const { sql } = storage;
  if (sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'reservations'").toArray().length === 0) return;
  const holds: Holds = {};
  for (const row of sql.exec<{ id: string; tokens: number; expires_at: number }>("SELECT id, tokens, expires_at FROM reservations")) {
    holds[row.id] = { tokens: row.tokens, expiresAt: row.expires_at };
  }
  if (Object.keys(holds).length > 0) storage.kv.put(HOLDS_KEY, holds);
  sql.exec("DROP TABLE reservations");
}
