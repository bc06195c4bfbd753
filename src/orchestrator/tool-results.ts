// What an MCP tool result becomes for the model, the page and the history. Text
// stays text and structured content stays JSON; images and audio (content parts,
// or embedded resources whose blob is one) travel as media within a budget;
// anything else becomes a line of text. Media never reach the history (a SQLite
// row holds at most 2 MB): the recorded result says which ones the model got.
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { MediaPart } from "../llm/provider";
import { mediaNames } from "../llm/media";
import { clip, decodedSize, decodeText, isTextual, mediaType } from "./blob-content";

/**
 * Base64 characters of media one turn may pass on. Every later model request of the
 * turn sends them again, Gemini refuses more than 20 MB of inline data in a request,
 * the page gets them in status frames, and a Worker has 128 MB of memory: 4 MB keeps
 * all of these comfortable while a few screenshots still fit.
 */
const MEDIA_TURN_BUDGET = 4 * 1024 * 1024;
/** Base64 characters one part may have: half the turn's budget, so one large image cannot take it all. */
const MEDIA_PART_LIMIT = 2 * 1024 * 1024;

/**
 * What a user sends (attached resources, files from their computer: up to 5 MB each, so
 * about 6.7 MB of base64) has a budget of its own beside the tool results': together they
 * stay under Gemini's 20 MB of inline data in a request.
 */
export const USER_MEDIA_BUDGET = 12 * 1024 * 1024;
export const USER_MEDIA_PART_LIMIT = 7 * 1024 * 1024;

/** What is left of a turn's media budget; the calls of a step draw on it as they finish. */
export class MediaBudget {
  private left: number;

  constructor(
    private readonly total = MEDIA_TURN_BUDGET,
    private readonly perPart = MEDIA_PART_LIMIT,
  ) {
    this.left = total;
  }

  /** Takes `size` characters; or leaves the budget as it was and says why not. */
  take(size: number): string | undefined {
    if (size > this.perPart) return `${formatSize(size)} of base64, over the ${formatSize(this.perPart)} one media part may have`;
    if (size > this.left)
      return `${formatSize(size)} of base64, more than the ${formatSize(this.left)} left of this turn's ${formatSize(this.total)} media budget`;
    this.left -= size;
    return undefined;
  }
}

export interface ReducedResult {
  /** For the model: the structured content, or the text with a line in place of each other part. */
  value: unknown;
  /** The images and audio the model gets with `value` (and the page with the status), in order. */
  media: MediaPart[];
  /** For the history and the page: `value`, plus a line naming the media the model got. */
  recorded: unknown;
}

type Content = CallToolResult["content"][number];

/** Reduces an MCP tool result to what a model can take, drawing its media from `budget`. */
export function reduceToolResult(result: CallToolResult, maxChars: number, budget: MediaBudget): ReducedResult {
  const structured = result.structuredContent && !result.isError ? result.structuredContent : undefined;
  const binary = result.content.some((part) => part.type === "image" || part.type === "audio" || (part.type === "resource" && "blob" in part.resource));
  // Structured content is what the tool means for a program to read: it goes as it is,
  // unless media came with it (then the text form carries their lines, and the JSON with it).
  if (structured && !binary) return { value: structured, media: [], recorded: structured };

  const media: MediaPart[] = [];
  const counts = { image: 0, audio: 0 };
  const attach = (type: MediaPart["type"], mimeType: string, data: string, from?: string): string => {
    const source = from ? `, from ${from}` : "";
    const refused = budget.take(data.length);
    if (refused) return `[${mimeType} ${type} left out${source}: ${refused}]`;
    media.push({ type, mimeType, data });
    return `[${type} ${++counts[type]}: ${mimeType}, ${formatSize(decodedSize(data))}${source}]`;
  };
  const line = (part: Content): string => {
    switch (part.type) {
      case "text":
        return part.text;
      case "image":
      case "audio":
        return attach(part.type, part.mimeType, part.data);
      case "resource_link":
        return `Resource link "${part.name}": ${part.uri}`;
      case "resource": {
        const { resource } = part;
        if ("text" in resource) return resource.text;
        const type = mediaType(resource.mimeType);
        if (type) return attach(type, resource.mimeType as string, resource.blob, resource.uri);
        if (isTextual(resource.mimeType)) return decodeText(resource.blob) ?? `[resource ${resource.uri}: ${resource.mimeType}, not valid base64]`;
        return `[resource ${resource.uri}: ${resource.mimeType ?? "binary data"}, ${formatSize(decodedSize(resource.blob))}, not readable as text]`;
      }
    }
  };
  const lines = result.content.map(line);
  if (structured && !lines.some((text) => sameJson(text, structured))) lines.push(JSON.stringify(structured));
  const text = lines.join("\n");
  const value = clip(text, maxChars);
  return { value, media, recorded: media.length > 0 ? `${value}\n${historyNote(media)}` : value };
}

/** The line the history keeps in place of the media themselves. */
function historyNote(media: MediaPart[]): string {
  return `[${mediaNames(media).join(", ")} went to the model with this result; media are not kept in the history]`;
}

/** Whether a text part is the structured content's own JSON (servers SHOULD send it so). */
function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KB"] : [bytes / (1024 * 1024), "MB"];
  return `${Number(value.toFixed(1))} ${unit}`;
}
