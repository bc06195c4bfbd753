// Files from the user's computer, attached to messages: the limits the page states
// before an upload, the upload itself (one file a request, into one of the caller's
// sessions), and the file served back or deleted, only ever to its owner: every id is
// looked up in the caller's own account, so another user's id is the same 404 as one
// that never existed. What a file may be: src/files/kinds.ts; where it lives: src/files/store.ts.
import { type Context, Hono } from "hono";
import { runtimeConfig } from "../config/runtime-config";
import type { AppEnv } from "../identity/identify";
import { FileError, quoted, sizeText } from "../files/errors";
import { ACCEPTED, classify, cleanName } from "../files/kinds";
import { FILE_ID, newFileId, type FileRecord } from "../files/record";
import { bucketOf, deleteFiles, fileKey } from "../files/store";
import { RequestError } from "../shared/errors";
import { userAccount } from "../users/account";
import { AccountErasingError } from "../users/erase-state";
import { ownedSession } from "./owned-session";

export const files = new Hono<AppEnv>();

/** What the page and a history entry know of a file. */
export const publicFile = ({ id, name, mimeType, kind, size }: FileRecord) => ({ id, name, mimeType, kind, size });

const limitsOf = (c: Context<AppEnv>) => {
  const { UPLOAD_MAX_FILE_BYTES, UPLOAD_MAX_FILES, UPLOAD_QUOTA_BYTES } = runtimeConfig(c.env).settings;
  return { maxFileBytes: UPLOAD_MAX_FILE_BYTES, maxFiles: UPLOAD_MAX_FILES, quotaBytes: UPLOAD_QUOTA_BYTES };
};

files.get("/api/files/limits", async (c) => {
  const usedBytes = await userAccount(c.env, c.var.identity.id).filesUsed();
  return c.json({ ...limitsOf(c), usedBytes, accepted: ACCEPTED, available: c.env.FILES !== undefined });
});

files.post("/sessions/:id/files", async (c) => {
  const session = c.req.param("id");
  await ownedSession(c, session, { claim: false });
  const bucket = bucketOf(c.env);
  const name = cleanName(decodedHeader(c.req.header("x-file-name")) ?? "file");
  const claimed = c.req.header("x-file-type") ?? "";
  const { maxFileBytes, maxFiles, quotaBytes } = limitsOf(c);
  const account = userAccount(c.env, c.var.identity.id);
  // Counted before the body is read: the quota bounds what is kept, this bounds the writes (each one costs R2 operations).
  const { UPLOADS_PER_MINUTE, UPLOAD_BURST } = runtimeConfig(c.env).settings;
  const spend = await account.admit("upload", { perMinute: UPLOADS_PER_MINUTE, burst: Math.max(UPLOAD_BURST, maxFiles) });
  if (!spend.ok) throw new RequestError(spend.code, spend.message, "retryAfterMs" in spend ? { retryAfterMs: spend.retryAfterMs } : {});
  const bytes = await readLimited(c.req.raw, maxFileBytes, name);
  const { kind, mimeType } = classify(name, claimed, bytes);
  const record: FileRecord = { id: newFileId(), session, name, mimeType, kind, size: bytes.byteLength, createdAt: Date.now() };
  const reserved = await account.reserveFile(record, quotaBytes);
  if (!reserved.ok) {
    throw new FileError(
      "file_quota_exceeded",
      `${quoted(name)} (${sizeText(record.size)}) does not fit: your files use ${sizeText(reserved.used)} of your ${sizeText(quotaBytes)}; delete sessions with files to make room`,
    );
  }
  try {
    await bucket.put(await fileKey(c.var.identity.id, record.id), bytes, { httpMetadata: { contentType: mimeType } });
  } catch (error) {
    await account.removeFile(record.id);
    throw error;
  }
  // Delete my data waits for this request (src/http/account-writes.ts), but not forever: if its record went
  // meanwhile, the bytes just stored go too rather than outlive the erase.
  if (!(await account.getFile(record.id))) {
    await deleteFiles(bucket, c.var.identity.id, [record.id]);
    throw new AccountErasingError();
  }
  return c.json({ file: publicFile(record), usedBytes: reserved.used }, 201);
});

files.get("/api/files/:fileId", async (c) => {
  const record = await ownFile(c);
  const object = await bucketOf(c.env).get(await fileKey(c.var.identity.id, record.id));
  if (!object) throw new FileError("file_not_found", `file ${record.id} is no longer stored`);
  // Never rendered as a page of this origin: text is plain text, nothing is sniffed, and a sandbox CSP
  // stops anything opened from it running; only images show inline (the chips' previews).
  const headers = new Headers({
    "content-type": record.kind === "text" ? "text/plain; charset=utf-8" : record.mimeType,
    "content-length": String(object.size),
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "private, max-age=300",
    "content-disposition": `${record.kind === "image" ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(record.name)}`,
  });
  return new Response(object.body, { headers });
});

files.delete("/api/files/:fileId", async (c) => {
  const record = await ownFile(c);
  await userAccount(c.env, c.var.identity.id).removeFile(record.id);
  await deleteFiles(bucketOf(c.env), c.var.identity.id, [record.id]);
  return c.body(null, 204);
});

async function ownFile(c: Context<AppEnv>): Promise<FileRecord> {
  const id = c.req.param("fileId") ?? "";
  if (!FILE_ID.test(id)) throw new FileError("file_not_found", "no such file");
  const record = await userAccount(c.env, c.var.identity.id).getFile(id);
  if (!record) throw new FileError("file_not_found", "no such file");
  return record;
}

/** The page sends the name URI-encoded (a header carries only Latin-1). */
function decodedHeader(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new RequestError("bad_request", "X-File-Name must be URI-encoded");
  }
}

/** The body, refused as soon as it passes `max` bytes (a declared Content-Length cannot lie its way past it). */
async function readLimited(request: Request, max: number, name: string): Promise<Uint8Array> {
  const tooLarge = () => new FileError("file_too_large", `${quoted(name)} is larger than ${sizeText(max)}, the most one file may have`);
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > max) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
