// Tool-result media as each provider passes them on. Both native APIs take a tool's
// result as text (OpenAI's tool message) or JSON (Gemini's functionResponse), so the
// media follow the results in a user message: per result, a text part saying which
// call they came from and naming each one as the result's text does ("image 1"),
// then its parts in the provider's own shape. A part the provider cannot take is
// named in that text with the reason instead of failing the whole request.
import type { DocumentPart, MediaPart, ToolCallResult, UserPart } from "./provider";

/** A provider's form of one part, or why it cannot take it. */
export type Converted<P> = { part: P } | { refused: string };

export interface MediaGroup<P> {
  text: string;
  parts: P[];
}

/** The media of `results` in groups (one per result that has any), in order. */
export function mediaGroups<P>(results: readonly ToolCallResult[], convert: (media: MediaPart) => Converted<P>): MediaGroup<P>[] {
  const groups: MediaGroup<P>[] = [];
  for (const result of results) {
    if (!result.media?.length) continue;
    const sent: string[] = [];
    const refused: string[] = [];
    const parts: P[] = [];
    mediaNames(result.media).forEach((name, i) => {
      const converted = convert(result.media?.[i] as MediaPart);
      if ("part" in converted) {
        sent.push(name);
        parts.push(converted.part);
      } else {
        refused.push(`${name}: ${converted.refused}`);
      }
    });
    const attached = sent.length > 0 ? `: ${sent.join(", ")}, attached in this order` : "";
    const notSent = refused.length > 0 ? `. Not sent: ${refused.join("; ")}` : "";
    groups.push({ text: `Media from ${result.name} (call ${result.id})${attached}${notSent}.`, parts });
  }
  return groups;
}

/** "image 1 (image/png)", numbered per kind in order, as the result's text names them. */
export function mediaNames(media: readonly MediaPart[]): string[] {
  const counts = { image: 0, audio: 0 };
  return media.map((part) => `${part.type} ${++counts[part.type]} (${part.mimeType})`);
}

/** For a model that reads text only (prompted mode): what it cannot be shown. */
export function describeMediaAsText(result: ToolCallResult): string {
  if (!result.media?.length) return "";
  return `\n[${mediaNames(result.media).join(", ")} of this result cannot be shown: this model is given text only]`;
}

/** The lower-cased MIME type without parameters ("audio/wav; codecs=1" → "audio/wav"). */
function baseMimeType(mimeType: string): string {
  return mimeType.split(";")[0]?.trim().toLowerCase() ?? "";
}

// Other names servers use for the same types.
const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/mpeg": "audio/mp3",
  "audio/x-aiff": "audio/aiff",
  "audio/x-flac": "audio/flac",
};

/** baseMimeType, with other names for the same type mapped to one ("audio/x-wav" → "audio/wav"). */
export function canonicalMimeType(mimeType: string): string {
  const base = baseMimeType(mimeType);
  return ALIASES[base] ?? base;
}

/**
 * A user message's text and parts in a provider's shape: text parts as text, media
 * converted, a medium the provider cannot take named in a text part instead.
 */
export function userParts<P>(
  text: string,
  parts: readonly UserPart[] | undefined,
  toText: (text: string) => P,
  convert: (media: MediaPart | DocumentPart) => Converted<P>,
): P[] {
  const out: P[] = text ? [toText(text)] : [];
  for (const part of parts ?? []) {
    if (part.type === "text") {
      out.push(toText(part.text));
      continue;
    }
    const converted = convert(part);
    out.push("part" in converted ? converted.part : toText(`[${part.type} (${part.mimeType}) not sent: ${converted.refused}]`));
  }
  return out;
}

/** For a model that reads text only: a user message's parts as one text. */
export function userPartsAsText(text: string, parts: readonly UserPart[] | undefined): string {
  if (!parts?.length) return text;
  const lines = parts.map((part) => (part.type === "text" ? part.text : `[${part.type} (${part.mimeType}) cannot be shown: this model is given text only]`));
  return [text, ...lines].filter(Boolean).join("\n\n");
}
