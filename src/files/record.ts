// A file a user attached, as their account keeps it (src/users/file-ledger.ts): which
// session it belongs to (it is deleted with that session), its cleaned name, the type its
// bytes were found to be, and its size, which counts against the user's quota.
import { z } from "zod";

export const FILE_ID = /^f_[A-Za-z0-9_-]{22}$/;

export const FileRecordSchema = z.object({
  id: z.string().regex(FILE_ID),
  session: z.string(),
  name: z.string(),
  mimeType: z.string(),
  kind: z.enum(["image", "pdf", "text"]),
  size: z.number().int().nonnegative(),
  createdAt: z.number(),
});
export type FileRecord = z.infer<typeof FileRecordSchema>;

/** A new file id: 128 random bits, URL-safe. Never derived from anything a client sends. */
export function newFileId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `f_${btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "")}`;
}
