// The contents of resources attached in this session, in the Durable Object's
// SQLite: what was read when the message was sent, replaced when a subscription
// says the resource changed. History entries name attachments by (server, uri);
// every turn rebuilds the model's parts from here, so a later turn sees the latest
// contents and a restart loses nothing.
import { z } from "zod";
import type { ResourceContents } from "../orchestrator/resource-parts";

/**
 * A SQLite row holds at most 2 MB. Contents larger than this keep their text parts
 * (cut) and lose their blobs, which become a line saying so.
 */
const MAX_STORED_CHARS = 1_500_000;

const StoredContentsSchema = z.array(
  z.union([
    z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string() }),
    z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string() }),
  ]),
);

export interface StoredAttachment {
  server: string;
  uri: string;
  name?: string;
  mimeType?: string;
  /** "resource": attached by the user (subscribed when the server allows); "prompt": a prompt's own content. */
  source: "resource" | "prompt";
  contents: ResourceContents;
}

export class AttachmentStore {
  // Rows as parsed, by server and uri: every turn rebuilds its parts from the attachments
  // of the whole history, and parsing up to 1.5 MB a row each time is work done again.
  private readonly parsed = new Map<string, StoredAttachment | undefined>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number = Date.now,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS attachment_contents (
      server TEXT NOT NULL,
      uri TEXT NOT NULL,
      name TEXT,
      mime_type TEXT,
      source TEXT NOT NULL,
      contents TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (server, uri)
    )`);
  }

  put(entry: StoredAttachment): void {
    this.parsed.delete(cacheKey(entry.server, entry.uri));
    this.sql.exec(
      `INSERT INTO attachment_contents (server, uri, name, mime_type, source, contents, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(server, uri) DO UPDATE SET name = COALESCE(excluded.name, attachment_contents.name), mime_type = excluded.mime_type,
         -- A resource the user attached stays subscribed even when a prompt later embeds the same uri.
         source = CASE WHEN attachment_contents.source = 'resource' THEN 'resource' ELSE excluded.source END,
         contents = excluded.contents, updated_at = excluded.updated_at`,
      entry.server,
      entry.uri,
      entry.name ?? null,
      entry.mimeType ?? null,
      entry.source,
      storable(entry.contents),
      this.now(),
    );
  }

  get(server: string, uri: string): StoredAttachment | undefined {
    const key = cacheKey(server, uri);
    if (!this.parsed.has(key)) this.parsed.set(key, this.read(server, uri));
    return this.parsed.get(key);
  }

  private read(server: string, uri: string): StoredAttachment | undefined {
    const row = this.sql
      .exec<{ server: string; uri: string; name: string | null; mime_type: string | null; source: string; contents: string; updated_at: number }>(
        "SELECT * FROM attachment_contents WHERE server = ? AND uri = ?",
        server,
        uri,
      )
      .toArray()[0];
    if (!row) return undefined;
    let contents: ResourceContents = [];
    try {
      const parsed = StoredContentsSchema.safeParse(JSON.parse(row.contents));
      if (parsed.success) contents = parsed.data;
    } catch {
      // An unreadable row reads as empty contents; the model is told the resource is empty.
    }
    return {
      server: row.server,
      uri: row.uri,
      name: row.name ?? undefined,
      mimeType: row.mime_type ?? undefined,
      source: row.source === "prompt" ? "prompt" : "resource",
      contents,
    };
  }

  /** The resources the user attached (each server, uri once): what the session keeps subscriptions for. */
  attached(server?: string): { server: string; uri: string }[] {
    const rows =
      server === undefined
        ? this.sql.exec<{ server: string; uri: string }>("SELECT server, uri FROM attachment_contents WHERE source = 'resource'")
        : this.sql.exec<{ server: string; uri: string }>("SELECT server, uri FROM attachment_contents WHERE source = 'resource' AND server = ?", server);
    return rows.toArray().map((r) => ({ server: r.server, uri: r.uri }));
  }

  clear(): void {
    this.parsed.clear();
    this.sql.exec("DELETE FROM attachment_contents");
  }
}

const cacheKey = (server: string, uri: string) => `${server}\n${uri}`;

function storable(contents: ResourceContents): string {
  const all = JSON.stringify(contents);
  if (all.length <= MAX_STORED_CHARS) return all;
  const share = Math.floor(MAX_STORED_CHARS / Math.max(1, contents.length) / 2);
  return JSON.stringify(
    contents.map((c) =>
      "text" in c
        ? { ...c, text: c.text.length > share ? `${c.text.slice(0, share)}…[truncated]` : c.text }
        : { uri: c.uri, mimeType: c.mimeType, text: `[${c.mimeType ?? "binary"} content of ${c.blob.length} base64 characters: too large to keep]` },
    ),
  );
}
