// What a resource attached to a user message (or a prompt's content) becomes for
// the model: text contents as text parts under a line naming the resource, image
// and audio blobs as media (drawn from the turn's media budget, newest message
// first, like a tool result's), text-like blobs decoded, anything else a short note.
import type { GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";
import type { ChatMessage, UserPart } from "../llm/provider";
import { formatSize, type MediaBudget } from "./tool-results";
import { clip, decodedSize, decodeText, isTextual, mediaType } from "./blob-content";

export type ResourceContents = ReadResourceResult["contents"];

/** How the model is told where an attached content came from. */
export interface AttachedSource {
  server: string;
  uri: string;
  name?: string;
}

/** The parts one attached resource gives the model (media unbudgeted yet: see fitUserMedia). */
export function resourceParts(source: AttachedSource, contents: ResourceContents, maxChars: number): UserPart[] {
  const title = `Attached resource ${source.name ? `"${source.name}" ` : ""}(${source.uri}, from MCP server "${source.server}")`;
  if (contents.length === 0) return [{ type: "text", text: `${title}: empty.` }];
  const parts: UserPart[] = [];
  for (const content of contents) {
    const where = content.uri === source.uri ? title : `${title}, part ${content.uri}`;
    if ("text" in content) {
      parts.push({ type: "text", text: `${where}:\n${clip(content.text, maxChars)}` });
      continue;
    }
    const type = mediaType(content.mimeType);
    if (type) {
      parts.push(
        { type: "text", text: `${where}: ${type} (${content.mimeType}), attached next.` },
        { type, mimeType: content.mimeType as string, data: content.blob },
      );
      continue;
    }
    const decoded = isTextual(content.mimeType) ? decodeText(content.blob) : undefined;
    parts.push({
      type: "text",
      text:
        decoded !== undefined
          ? `${where}:\n${clip(decoded, maxChars)}`
          : `${where}: ${content.mimeType ?? "binary data"}, ${formatSize(decodedSize(content.blob))}, not readable as text.`,
    });
  }
  return parts;
}

/**
 * Keeps the media of user messages within `budget`, the newest message first (this
 * turn's attachments matter most); a medium that does not fit becomes a note.
 */
export function fitUserMedia(messages: ChatMessage[], budget: MediaBudget): ChatMessage[] {
  const out = messages.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    const message = out[i] as ChatMessage;
    if (message.role !== "user" || !message.parts?.some((p) => p.type !== "text")) continue;
    const parts = message.parts.map((part): UserPart => {
      if (part.type === "text") return part;
      const refused = budget.take(part.data.length);
      return refused ? { type: "text", text: `[${part.mimeType} ${part.type} left out: ${refused}]` } : part;
    });
    out[i] = { ...message, parts };
  }
  return out;
}

/** A prompt's messages, consecutive ones of a role joined: text, and contents to attach (each with a uri). */
export interface PromptTurnMessage {
  role: "user" | "assistant";
  text: string;
  attached: { uri: string; name?: string; contents: ResourceContents }[];
}

/**
 * Maps prompts/get's messages: text stays text; images and audio become blob contents
 * under `mediaUri(i)` (so they are stored and replayed like a resource); embedded
 * resources keep their uri; resource links become a line of text.
 */
export function promptTurnMessages(result: GetPromptResult, mediaUri: (index: number) => string): PromptTurnMessage[] {
  const out: PromptTurnMessage[] = [];
  result.messages.forEach((message, index) => {
    let current = out[out.length - 1];
    if (!current || current.role !== message.role) {
      current = { role: message.role, text: "", attached: [] };
      out.push(current);
    }
    const addText = (text: string) => {
      if (current) current.text = current.text ? `${current.text}\n\n${text}` : text;
    };
    const content = message.content;
    switch (content.type) {
      case "text":
        addText(content.text);
        break;
      case "image":
      case "audio": {
        const uri = mediaUri(index);
        current.attached.push({ uri, name: `${content.type} from the prompt`, contents: [{ uri, mimeType: content.mimeType, blob: content.data }] });
        break;
      }
      case "resource":
        current.attached.push({ uri: content.resource.uri, contents: [content.resource] });
        break;
      case "resource_link":
        addText(`Resource link "${content.name}": ${content.uri}`);
        break;
    }
  });
  return out;
}
