// A user's paired machines, in their UserAccount's SQLite: id, name, the digest of the
// device credential's secret, and the servers the machine announced when it last
// connected. Whether a machine is online is not stored: it is whether its socket is open.
import { z } from "zod";
import { sameDigest } from "./credentials";

export const MachineSchema = z.object({
  id: z.string(),
  name: z.string(),
  servers: z.array(z.string()),
  pairedAt: z.number(),
  lastSeen: z.number().nullable(),
});
export type Machine = z.infer<typeof MachineSchema>;

/** A machine as sessions and the page see it. */
export type MachineView = Machine & { online: boolean };

interface Row extends Record<string, SqlStorageValue> {
  id: string;
  name: string;
  secret_hash: string;
  servers: string;
  paired_at: number;
  last_seen: number | null;
}

export const MAX_MACHINES_PER_USER = 20;

export class MachineStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS machines (id TEXT PRIMARY KEY, name TEXT NOT NULL, secret_hash TEXT NOT NULL, servers TEXT NOT NULL DEFAULT '[]', paired_at INTEGER NOT NULL, last_seen INTEGER)`,
    );
  }

  list(): Machine[] {
    return this.sql.exec<Row>("SELECT * FROM machines ORDER BY name").toArray().map(toMachine);
  }

  get(id: string): Machine | undefined {
    const row = this.sql.exec<Row>("SELECT * FROM machines WHERE id = ?", id).toArray()[0];
    return row ? toMachine(row) : undefined;
  }

  /** Adds a machine under `name`, or `name-2`, `name-3`… when the user has one of that name. Undefined past the cap. */
  add(id: string, name: string, secretHash: string, now = Date.now()): Machine | undefined {
    const taken = new Set(this.list().map((m) => m.name.toLowerCase()));
    if (taken.size >= MAX_MACHINES_PER_USER) return undefined;
    let unique = name;
    for (let n = 2; taken.has(unique.toLowerCase()); n++) unique = `${name.slice(0, 28)}-${n}`;
    this.sql.exec("INSERT INTO machines (id, name, secret_hash, paired_at) VALUES (?, ?, ?, ?)", id, unique, secretHash, now);
    return this.get(id);
  }

  /** Whether `secretHash` is the digest stored for machine `id`. */
  verify(id: string, secretHash: string): boolean {
    const row = this.sql.exec<Row>("SELECT secret_hash FROM machines WHERE id = ?", id).toArray()[0];
    return row !== undefined && sameDigest(row.secret_hash, secretHash);
  }

  announce(id: string, servers: string[], now = Date.now()): void {
    this.sql.exec("UPDATE machines SET servers = ?, last_seen = ? WHERE id = ?", JSON.stringify(servers), now, id);
  }

  seen(id: string, now = Date.now()): void {
    this.sql.exec("UPDATE machines SET last_seen = ? WHERE id = ?", now, id);
  }

  remove(id: string): boolean {
    return this.sql.exec("DELETE FROM machines WHERE id = ? RETURNING id", id).toArray().length > 0;
  }
}

function toMachine(row: Row): Machine {
  let servers: string[] = [];
  try {
    servers = z.array(z.string()).parse(JSON.parse(row.servers));
  } catch {
    // Written only by announce() from a validated frame; an unreadable row lists nothing.
  }
  return { id: row.id, name: row.name, servers, pairedAt: row.paired_at, lastSeen: row.last_seen };
}
