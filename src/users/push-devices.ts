// The browsers a person chose to get push notifications on ("devices"), in their account:
// each is a Web Push subscription (endpoint + the browser's keys), capped per person, added
// again by the same browser without counting twice (upsert by endpoint), forgotten when its
// push service says it is gone (404/410) or after repeated refusals. The endpoint is a
// capability URL (whoever has it can push to that browser): it never leaves this object but
// towards its own push service, and is never logged or listed; the page sees the id only.
import { z } from "zod";
import type { PushDetail } from "../push/notice";
import type { PushTarget } from "../push/sender";

/** Refusals (400/403/413) in a row after which a device is forgotten (its keys changed, or ours). */
export const MAX_REJECTIONS = 3;

export const DeviceIdSchema = z.string().regex(/^[0-9a-f]{16}$/);

export interface NewDevice {
  endpoint: string;
  p256dh: string;
  auth: string;
  label: string;
}

/** What the page sees of a device. */
export interface DeviceView {
  id: string;
  label: string;
  createdAt: number;
  lastOkAt: number | null;
  failing: boolean;
}

export type StoredDevice = PushTarget & { id: string };

type Row = { id: string; label: string; created_at: number; last_ok_at: number | null; failures: number };

async function deviceId(endpoint: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(endpoint)));
  return [...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class PushDevices {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS push_devices (
      id TEXT PRIMARY KEY,
      endpoint TEXT NOT NULL UNIQUE,
      p256dh TEXT NOT NULL,
      auth TEXT NOT NULL,
      label TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_ok_at INTEGER,
      failures INTEGER NOT NULL DEFAULT 0
    )`);
    sql.exec("CREATE TABLE IF NOT EXISTS push_prefs (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  }

  /**
   * Adds (or renews) the device; refused past `cap` devices. The id is derived from the endpoint, so
   * computed before the synchronous check-and-write (no await between them: the object cannot interleave).
   */
  async add(device: NewDevice, cap: number, now: number): Promise<{ ok: true; id: string } | { ok: false; limit: number }> {
    const id = await deviceId(device.endpoint);
    const known = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM push_devices WHERE id = ?", id).one().n > 0;
    if (!known && this.count() >= cap) return { ok: false, limit: cap };
    this.sql.exec(
      `INSERT INTO push_devices (id, endpoint, p256dh, auth, label, created_at, failures) VALUES (?, ?, ?, ?, ?, ?, 0)
       ON CONFLICT(id) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, label = excluded.label, failures = 0`,
      id,
      device.endpoint,
      device.p256dh,
      device.auth,
      device.label,
      now,
    );
    return { ok: true, id };
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM push_devices").one().n;
  }

  list(): DeviceView[] {
    return this.sql
      .exec<Row>("SELECT id, label, created_at, last_ok_at, failures FROM push_devices ORDER BY created_at")
      .toArray()
      .map((r) => ({ id: r.id, label: r.label, createdAt: r.created_at, lastOkAt: r.last_ok_at, failing: r.failures > 0 }));
  }

  /** Where to push (endpoint and keys): for delivery in this object only. */
  targets(id?: string): StoredDevice[] {
    type Target = { id: string; endpoint: string; p256dh: string; auth: string };
    const query = "SELECT id, endpoint, p256dh, auth FROM push_devices";
    return (id ? this.sql.exec<Target>(`${query} WHERE id = ?`, id) : this.sql.exec<Target>(query)).toArray();
  }

  remove(id: string): boolean {
    return this.sql.exec("DELETE FROM push_devices WHERE id = ?", id).rowsWritten > 0;
  }

  delivered(id: string, now: number): void {
    this.sql.exec("UPDATE push_devices SET last_ok_at = ?, failures = 0 WHERE id = ?", now, id);
  }

  /** A failed push; with `rejected` the device is forgotten at MAX_REJECTIONS in a row. True when it was removed. */
  failed(id: string, rejected: boolean): boolean {
    this.sql.exec("UPDATE push_devices SET failures = failures + 1 WHERE id = ?", id);
    if (!rejected) return false;
    const row = this.sql.exec<{ failures: number }>("SELECT failures FROM push_devices WHERE id = ?", id).toArray()[0];
    return row !== undefined && row.failures >= MAX_REJECTIONS && this.remove(id);
  }

  detail(): PushDetail {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM push_prefs WHERE key = 'detail'").toArray()[0];
    return row?.value === "minimal" ? "minimal" : "full";
  }

  setDetail(detail: PushDetail): void {
    this.sql.exec("INSERT INTO push_prefs (key, value) VALUES ('detail', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", detail);
  }

  clear(): void {
    this.sql.exec("DELETE FROM push_devices");
    this.sql.exec("DELETE FROM push_prefs");
  }
}
