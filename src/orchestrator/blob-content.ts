// What MCP content (a tool result's or a resource's) is to a model: a blob (base64 with
// a MIME type) is an image or audio clip it can be given as media, text it can read
// once decoded (some servers send text as a blob), or neither; long text is clipped.
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

/** Bytes that base64 text stands for. */
export function decodedSize(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

/** `text` cut to `maxChars`, saying how much was cut. */
export function clip(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n…[truncated ${text.length - maxChars} characters]` : text;
}
