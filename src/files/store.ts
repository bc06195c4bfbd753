// Where attached files' bytes live: the FILES R2 bucket, one object per file under a
// prefix of its owner (a hash of their id, so no user name or email is in a key). Only
// the Worker and the owner's sessions read it, always with an id from the owner's own
// account; a missing binding fails closed (503 files_unavailable).
import { FileError } from "./errors";

const encoder = new TextEncoder();

export async function ownerPrefix(userId: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(`files:${userId}`)));
  return `u/${[...hash.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("")}/`;
}

export async function fileKey(userId: string, fileId: string): Promise<string> {
  return `${await ownerPrefix(userId)}${fileId}`;
}

export function bucketOf(env: { FILES?: R2Bucket }): R2Bucket {
  if (!env.FILES) throw new FileError("files_unavailable", "attaching files is not set up on this deployment (no FILES bucket binding)");
  return env.FILES;
}

/** Deletes the objects of these files of `userId` (R2 takes up to 1000 keys a call). */
export async function deleteFiles(bucket: R2Bucket, userId: string, ids: readonly string[]): Promise<void> {
  const prefix = await ownerPrefix(userId);
  for (let i = 0; i < ids.length; i += 1000) await bucket.delete(ids.slice(i, i + 1000).map((id) => `${prefix}${id}`));
}

/** Every object of `userId` (an account's deletion: files whose record was lost are caught too). */
export async function deleteAllFiles(bucket: R2Bucket, userId: string): Promise<number> {
  const prefix = await ownerPrefix(userId);
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
    deleted += page.objects.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return deleted;
}
