// What an MCP blob (base64 with a MIME type, in a tool result or a resource) is to a
// model: an image or audio clip it can be given as media, text it can read once
// decoded (some servers send text as a blob), or neither.
import type { MediaPart } from "../llm/provider";

export function mediaType(mimeType: string | undefined): MediaPart["type"] | undefined {
  if (mimeType?.startsWith("image/")) return "image";
  if (mimeType?.startsWith("audio/")) return "audio";
  return undefined;
}

export function isTextual(mimeType: string | undefined): boolean {
  return !!mimeType && (mimeType.startsWith("text/") || /^application\/([\w.+-]+\+)?(json|xml|yaml|javascript)\b/.test(mimeType));
}

/** The blob as UTF-8 text; undefined when it is not valid base64. */
export function decodeText(base64: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
