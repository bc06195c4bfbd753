// What a Durable Object writes, counted where the platform counts it: every `sql.exec` cursor's
// `rowsWritten`/`rowsRead` (by the table the statement names), KV `put`/`delete` keys (SQLite-
// backed objects keep them in a table, billed as rows) and `setAlarm`/`deleteAlarm` calls
// (Cloudflare bills each `setAlarm` as a row written). Installed by a test on a live object's
// own `ctx.storage` (runInDurableObject hands the test that very object): the object's code is
// not touched and nothing of this ships in the Worker. Used by schedule-cost.test.ts and
// bench/workerd/schedule-cost.bench.ts.
import { runInDurableObject } from "cloudflare:test";

export interface StorageCounts {
  /** Rows written by SQL statements, by the table each statement names. */
  sqlWritten: Record<string, number>;
  /** The same rows by statement (its text, spaces folded): where a table's rows come from. */
  byStatement: Record<string, number>;
  rowsRead: number;
  /** Keys put or deleted through the KV API. */
  kvKeys: number;
  alarmSets: number;
  alarmDeletes: number;
}

/** Rows billed as written: SQL rows, KV keys and alarm sets. */
export const billedRows = (c: StorageCounts) => sum(c.sqlWritten) + c.kvKeys + c.alarmSets;
export const sum = (byTable: Record<string, number>) => Object.values(byTable).reduce((a, b) => a + b, 0);
export const empty = (): StorageCounts => ({ sqlWritten: {}, byStatement: {}, rowsRead: 0, kvKeys: 0, alarmSets: 0, alarmDeletes: 0 });

/** The table a writing statement names (`other` for DDL and reads). */
export function tableOf(query: string): string {
  const m = /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+["`[]?(\w+)/i.exec(query);
  return m?.[1] ?? "other";
}

const METER = Symbol.for("edgehost.storage-meter");

interface Meter {
  cursors: { table: string; query: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }[];
  kvKeys: number;
  alarmSets: number;
  alarmDeletes: number;
  /** While > 0 the test's own reads are not counted. */
  quiet: number;
}

type Metered = DurableObjectStorage & { [METER]?: Meter };

function install(storage: Metered): Meter {
  const existing = storage[METER];
  if (existing) return existing;
  const meter: Meter = { cursors: [], kvKeys: 0, alarmSets: 0, alarmDeletes: 0, quiet: 0 };
  const sql = storage.sql;
  const exec = sql.exec.bind(sql);
  // Own properties over the prototype's methods: every caller reaches them through this same object.
  Object.assign(sql, {
    exec: (query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...bindings);
      if (meter.quiet === 0) meter.cursors.push({ table: tableOf(query), query, cursor });
      return cursor;
    },
  });
  const put = storage.put.bind(storage) as (...args: unknown[]) => Promise<void>;
  const del = storage.delete.bind(storage) as (...args: unknown[]) => Promise<unknown>;
  const setAlarm = storage.setAlarm.bind(storage);
  const deleteAlarm = storage.deleteAlarm.bind(storage);
  Object.assign(storage, {
    put: (keyOrEntries: string | Record<string, unknown>, ...rest: unknown[]) => {
      meter.kvKeys += typeof keyOrEntries === "string" ? 1 : Object.keys(keyOrEntries).length;
      return put(keyOrEntries, ...rest);
    },
    delete: (keys: string | string[], ...rest: unknown[]) => {
      meter.kvKeys += typeof keys === "string" ? 1 : keys.length;
      return del(keys, ...rest);
    },
    setAlarm: (...args: Parameters<DurableObjectStorage["setAlarm"]>) => {
      meter.alarmSets++;
      return setAlarm(...args);
    },
    deleteAlarm: (...args: Parameters<DurableObjectStorage["deleteAlarm"]>) => {
      meter.alarmDeletes++;
      return deleteAlarm(...args);
    },
  });
  storage[METER] = meter;
  return meter;
}

/** Counts since the last take (cursors are read now: a cursor's counts grow as its caller reads it). */
function take(meter: Meter): StorageCounts {
  const counts = empty();
  for (const { table, query, cursor } of meter.cursors) {
    if (cursor.rowsWritten > 0) {
      counts.sqlWritten[table] = (counts.sqlWritten[table] ?? 0) + cursor.rowsWritten;
      const statement = query.replace(/\s+/g, " ").trim();
      counts.byStatement[statement] = (counts.byStatement[statement] ?? 0) + cursor.rowsWritten;
    }
    counts.rowsRead += cursor.rowsRead;
  }
  Object.assign(counts, { kvKeys: meter.kvKeys, alarmSets: meter.alarmSets, alarmDeletes: meter.alarmDeletes });
  meter.cursors = [];
  Object.assign(meter, { kvKeys: 0, alarmSets: 0, alarmDeletes: 0 });
  return counts;
}

const merged = (a: Record<string, number>, b: Record<string, number>) => {
  const out = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
};

export function add(a: StorageCounts, b: StorageCounts): StorageCounts {
  return {
    sqlWritten: merged(a.sqlWritten, b.sqlWritten),
    byStatement: merged(a.byStatement, b.byStatement),
    rowsRead: a.rowsRead + b.rowsRead,
    kvKeys: a.kvKeys + b.kvKeys,
    alarmSets: a.alarmSets + b.alarmSets,
    alarmDeletes: a.alarmDeletes + b.alarmDeletes,
  };
}

/** A meter on one object (its stub): `take()` the counts since the last take. */
export interface StorageMeter {
  take(): Promise<StorageCounts>;
  /** Runs `fn` in the object with its storage reads and writes not counted (the test's own look). */
  look<T>(fn: (instance: unknown, state: DurableObjectState) => T | Promise<T>): Promise<T>;
}

/**
 * Meters `stub`'s object from now on. The object must stay the same instance (no eviction):
 * a fresh instance would come with a fresh, unmetered storage, so every take checks the meter is still there.
 */
export async function meterObject<T extends Rpc.DurableObjectBranded | undefined>(stub: DurableObjectStub<T>): Promise<StorageMeter> {
  await runInDurableObject(stub, (_instance, state) => {
    install(state.storage as Metered);
  });
  const metered = (state: DurableObjectState): Meter => {
    const meter = (state.storage as Metered)[METER];
    if (!meter) throw new Error("the object was made again: its storage is no longer metered");
    return meter;
  };
  return {
    take: () => runInDurableObject(stub, (_instance, state) => take(metered(state))),
    look: (fn) =>
      runInDurableObject(stub, async (instance, state) => {
        const meter = metered(state);
        meter.quiet++;
        try {
          return await fn(instance, state);
        } finally {
          meter.quiet--;
        }
      }),
  };
}
