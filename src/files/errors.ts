// Why an uploaded file was refused, by a code of the closed table (src/shared/error-codes.ts)
// and a message that names the file, so the page can say which one of several failed.
import type { ErrorCode } from "../shared/error-codes";
import { EdgehostError } from "../shared/errors";

export type FileErrorCode = Extract<
  ErrorCode,
  "file_type_unsupported" | "file_too_large" | "file_content_mismatch" | "file_quota_exceeded" | "files_unavailable" | "file_not_found" | "too_many_files"
>;

export class FileError extends EdgehostError {
  constructor(
    readonly code: FileErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A file's name quoted for a message: JSON quoting, so no name can break out of its quotes or span lines. */
export const quoted = (name: string): string => JSON.stringify(name);

/** "1.5 MB": sizes in messages the user reads. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KB"] : [bytes / (1024 * 1024), "MB"];
  return `${Number(value.toFixed(1))} ${unit}`;
}
