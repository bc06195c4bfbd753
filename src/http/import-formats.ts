// The exports a user can bring back as sessions, read into one shape: this product's own
// (GET /api/export: the whole file, or one session of it), and as a bonus ChatGPT's and
// Claude's conversations.json. Each is checked by its own zod schema, so a bad file is
// refused naming its format and the first thing wrong in it (path and reason).
import { z } from "zod";
import { ImportedEntriesSchema, MAX_IMPORT_TEXT, type ImportedEntry } from "../session/history-import";
import { RequestError } from "../shared/errors";
import { zodIssues } from "./request-body";

export const MAX_IMPORT_CONVERSATIONS = 50;

export interface ImportedConversation {
  title: string | null;
  entries: ImportedEntry[];
}

const text = z.string().max(MAX_IMPORT_TEXT, `at most ${MAX_IMPORT_TEXT} characters`);
const conversations = <T extends z.ZodType>(item: T) =>
  z.array(item).min(1, "there is no conversation in it").max(MAX_IMPORT_CONVERSATIONS, `at most ${MAX_IMPORT_CONVERSATIONS} conversations per import`);

// ---- edgehost (src/http/my-data.ts) ----

const EdgehostSessionSchema = z.object({ title: z.string().max(200).nullable().optional(), entries: ImportedEntriesSchema });
const EdgehostFileSchema = z.object({ sessions: conversations(EdgehostSessionSchema) });

// ---- ChatGPT: conversations.json, each conversation a tree of messages (mapping), read along current_node ----

const ChatGptNodeSchema = z.object({
  parent: z.string().nullable().optional(),
  message: z
    .object({
      author: z.object({ role: z.string() }),
      content: z.object({ parts: z.array(z.unknown()).optional() }).optional(),
      create_time: z.number().nullable().optional(),
    })
    .nullable()
    .optional(),
});
const ChatGptConversationSchema = z.object({
  title: z.string().max(500).nullable().optional(),
  mapping: z.record(z.string(), ChatGptNodeSchema),
  current_node: z.string().nullable().optional(),
});

function fromChatGpt(c: z.infer<typeof ChatGptConversationSchema>): ImportedConversation {
  const path: z.infer<typeof ChatGptNodeSchema>[] = [];
  const seen = new Set<string>();
  // The current branch: from the last message up to the root (a cycle or a missing node ends it).
  let at = c.current_node ?? Object.keys(c.mapping).at(-1) ?? null;
  while (at && !seen.has(at) && c.mapping[at]) {
    seen.add(at);
    const node = c.mapping[at];
    if (node) path.unshift(node);
    at = node?.parent ?? null;
  }
  const entries = path.flatMap((node): ImportedEntry[] => {
    const role = node.message?.author.role;
    if (role !== "user" && role !== "assistant") return [];
    const words = (node.message?.content?.parts ?? []).filter((p): p is string => typeof p === "string").join("\n");
    return words.trim() ? [{ kind: role, text: words.slice(0, MAX_IMPORT_TEXT) }] : [];
  });
  return { title: c.title ?? null, entries };
}

// ---- Claude: conversations.json, each conversation a list of chat_messages ----

const ClaudeConversationSchema = z.object({
  name: z.string().max(500).nullable().optional(),
  chat_messages: z
    .array(
      z.object({
        sender: z.string(),
        text: text.optional(),
        content: z.array(z.object({ type: z.string(), text: text.optional() })).optional(),
      }),
    )
    .max(1_000),
});

function fromClaude(c: z.infer<typeof ClaudeConversationSchema>): ImportedConversation {
  const entries = c.chat_messages.flatMap((m): ImportedEntry[] => {
    const kind = m.sender === "human" ? "user" : m.sender === "assistant" ? "assistant" : undefined;
    const words =
      m.text ||
      (m.content ?? [])
        .filter((b) => b.type === "text")
        .map((b) => b.text ?? "")
        .join("\n");
    return kind && words.trim() ? [{ kind, text: words.slice(0, MAX_IMPORT_TEXT) }] : [];
  });
  return { title: c.name || null, entries };
}

// ---- which one ----

function checked<T extends z.ZodType>(format: string, schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = zodIssues(result.error);
  const first = issues[0];
  throw new RequestError("bad_request", `${format}: ${first ? `${first.path || "the file"}: ${first.message}` : "not valid"}`, { issues });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The conversations in an uploaded export; a file of no known format, or a bad one, is refused naming why. */
export function readImport(body: unknown): ImportedConversation[] {
  if (isObject(body) && "sessions" in body)
    return checked("an edgehost export", EdgehostFileSchema, body).sessions.map((s) => ({ title: s.title ?? null, entries: s.entries }));
  if (isObject(body) && "entries" in body) {
    const session = checked("an edgehost session", EdgehostSessionSchema, body);
    return [{ title: session.title ?? null, entries: session.entries }];
  }
  if (Array.isArray(body) && isObject(body[0]) && "mapping" in body[0])
    return checked("a ChatGPT export", conversations(ChatGptConversationSchema), body).map(fromChatGpt);
  if (Array.isArray(body) && isObject(body[0]) && "chat_messages" in body[0])
    return checked("a Claude export", conversations(ClaudeConversationSchema), body).map(fromClaude);
  throw new RequestError(
    "bad_request",
    'not a conversation export: send an edgehost export ({"sessions": [...]}) or one of its sessions ({"title", "entries": [...]}), or the conversations.json of a ChatGPT or Claude export',
  );
}
