// What a file from the user's computer becomes for the model: a line naming it, then an
// image as an image part and a PDF as a document part (each provider passes them on
// natively or names what it cannot take: src/llm/media.ts), and a text or code file as
// its text, clipped like an attached resource's. Media come from the turn's budget for
// user media like attached resources' (resource-parts.ts: fitUserMedia).
import type { UserPart } from "../llm/provider";
import { clip } from "./blob-content";
import { formatSize } from "./tool-results";

export interface AttachedFile {
  name: string;
  mimeType: string;
  kind: "image" | "pdf" | "text";
  size: number;
}

/** `bytes`: the file's contents, or undefined when they are gone (deleted meanwhile). */
export function fileParts(file: AttachedFile, bytes: Uint8Array | undefined, maxChars: number): UserPart[] {
  const title = `Attached file ${JSON.stringify(file.name)} (${file.mimeType}, ${formatSize(file.size)})`;
  if (!bytes) return [{ type: "text", text: `[${title} is no longer available]` }];
  if (file.kind === "text") return [{ type: "text", text: `${title}:\n${clip(new TextDecoder().decode(bytes), maxChars)}` }];
  const data = toBase64(bytes);
  if (file.kind === "image")
    return [
      { type: "text", text: `${title}: image, attached next.` },
      { type: "image", mimeType: file.mimeType, data },
    ];
  return [
    { type: "text", text: `${title}: document, attached next.` },
    { type: "document", mimeType: file.mimeType, data, name: file.name },
  ];
}

/** Base64 of bytes, a chunk at a time (spreading megabytes into one call overflows the stack). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
