// Files from the user's computer in a session: the ids a message names checked against
// the owner's account (the file must be theirs and uploaded to this session), their
// bytes read from R2 for each turn's model request (kept in memory for the next steps
// and turns, within a cap), and deleted with the session's history (reset, delete,
// expiry). Uploading and serving are the Worker's (src/http/files.ts).
import type { Env } from "../config/env";
import { FileError } from "../files/errors";
import { FILE_ID, type FileRecord } from "../files/record";
import { bucketOf, deleteFiles, fileKey } from "../files/store";
import type { UserPart } from "../llm/provider";
import { fileParts } from "../orchestrator/file-parts";
import type { FileRef } from "../protocol/messages";
import { userAccount } from "../users/account";

/** Bytes of files kept in memory between turns; more are read from R2 again when needed. */
const CACHE_BYTES = 16 * 1024 * 1024;

export interface SessionFilesDeps {
  env: Env;
  session: string;
  owner: () => string | undefined;
  maxFiles: () => number;
  maxChars: () => number;
}

export class SessionFiles {
  private readonly cache = new Map<string, Uint8Array>();
  private cached = 0;

  constructor(private readonly deps: SessionFilesDeps) {}

  /** The files a message names, as its user entry records them; a typed error naming the first that is not usable. */
  async resolve(ids: readonly string[]): Promise<FileRef[]> {
    const unique = [...new Set(ids)];
    const max = this.deps.maxFiles();
    if (unique.length > max) throw new FileError("too_many_files", `a message may carry at most ${max} files (got ${unique.length})`);
    const owner = this.deps.owner();
    if (!owner) throw new FileError("file_not_found", "this session has no owner");
    const account = userAccount(this.deps.env, owner);
    const refs: FileRef[] = [];
    for (const id of unique) {
      // Another user's file, one of another session, and a made-up id get the same answer.
      const record: FileRecord | undefined = FILE_ID.test(id) ? await account.getFile(id) : undefined;
      if (!record || record.session !== this.deps.session)
        throw new FileError("file_not_found", `no file ${JSON.stringify(id.slice(0, 64))} was uploaded to this session`);
      const { name, mimeType, kind, size } = record;
      refs.push({ id, name, mimeType, kind, size });
    }
    return refs;
  }

  /** A user entry's files as model parts, read from R2 (a file deleted meanwhile becomes a note). */
  async parts(files: readonly FileRef[] | undefined): Promise<UserPart[] | undefined> {
    if (!files?.length) return undefined;
    const all = await Promise.all(files.map(async (file) => fileParts(file, await this.bytes(file.id), this.deps.maxChars())));
    return all.flat();
  }

  /** The session's history is gone: so are its files (their records in the account, their bytes in R2). */
  async forget(): Promise<void> {
    this.cache.clear();
    this.cached = 0;
    const owner = this.deps.owner();
    if (!owner || !this.deps.env.FILES) return;
    const ids = await userAccount(this.deps.env, owner).takeFiles(this.deps.session);
    if (ids.length > 0) await deleteFiles(this.deps.env.FILES, owner, ids);
  }

  private async bytes(id: string): Promise<Uint8Array | undefined> {
    const hit = this.cache.get(id);
    if (hit) return hit;
    const owner = this.deps.owner();
    if (!owner || !this.deps.env.FILES) return undefined;
    const object = await bucketOf(this.deps.env).get(await fileKey(owner, id));
    if (!object) return undefined;
    const bytes = new Uint8Array(await object.arrayBuffer());
    this.keep(id, bytes);
    return bytes;
  }

  private keep(id: string, bytes: Uint8Array): void {
    if (bytes.byteLength > CACHE_BYTES) return;
    // Oldest first out (a Map iterates in insertion order).
    for (const [key, value] of this.cache) {
      if (this.cached + bytes.byteLength <= CACHE_BYTES) break;
      this.cache.delete(key);
      this.cached -= value.byteLength;
    }
    this.cache.set(id, bytes);
    this.cached += bytes.byteLength;
  }
}
