// A turn opened by a server's prompt (the page's `/` command): the prompt checked
// against what the server lists (required arguments given), fetched with
// prompts/get, and its messages turned into history entries: user messages with
// their text and contents (images, audio and embedded resources kept like
// attachments), assistant messages as assistant entries. The first user entry
// records which prompt it was, and carries what the user attached with it (resources,
// files from their computer).
import { CatalogError, findPrompt } from "../mcp/catalog";
import type { McpHost } from "../mcp/host";
import { promptTurnMessages } from "../orchestrator/resource-parts";
import { EdgehostError } from "../shared/errors";
import { errorMessage } from "../shared/logger";
import type { AttachmentStore } from "./attachment-store";
import type { AttachedEntry, AttachmentRef, SessionAttachments } from "./attachments";
import type { NewEntry } from "./history";
import type { FileRef } from "../protocol/messages";
import type { SessionFiles } from "./session-files";

export interface PromptRequest {
  server: string;
  name: string;
  arguments?: Record<string, string>;
  attachments?: AttachmentRef[];
  /** Files uploaded to the session, by id: they go with the prompt's first user message, as with a typed one. */
  files?: string[];
}

export type OpeningEntry = Omit<NewEntry, "turnId">;

export interface TurnOpening {
  entries: OpeningEntry[];
  /** What titles the session in its owner's list. */
  title: string;
}

export async function openWithPrompt(
  request: PromptRequest,
  deps: { host: McpHost; attachments: SessionAttachments; store: AttachmentStore; files: SessionFiles },
): Promise<TurnOpening> {
  const { server, name } = request;
  deps.attachments.checkServer(server);
  // Checked first, as for a typed message: a refused file costs no MCP request.
  const files: FileRef[] = request.files?.length ? await deps.files.resolve(request.files) : [];
  const prompt = findPrompt(deps.host, server, name);
  const given = request.arguments ?? {};
  const missing = prompt.arguments.filter((a) => a.required && !given[a.name]?.trim()).map((a) => a.name);
  if (missing.length > 0) throw new CatalogError("argument_missing", `prompt "${name}" needs ${missing.map((m) => `"${m}"`).join(", ")}`, server);
  const unknown = Object.keys(given).filter((key) => !prompt.arguments.some((a) => a.name === key));
  if (unknown.length > 0) throw new CatalogError("argument_unknown", `prompt "${name}" has no argument ${unknown.map((u) => `"${u}"`).join(", ")}`, server);
  const args = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== ""));

  const attached = request.attachments?.length ? await deps.attachments.attach(request.attachments) : [];
  let result;
  try {
    result = await deps.host.getPrompt(`${server}.${name}`, args, { bypassCache: true });
  } catch (error) {
    if (error instanceof EdgehostError && error.code === "server_unavailable") throw error;
    throw new CatalogError("prompt_failed", `MCP server "${server}" could not give prompt "${name}": ${errorMessage(error)}`, server);
  }
  const opening = crypto.randomUUID();
  const messages = promptTurnMessages(result, (index) => `prompt://${server}/${encodeURIComponent(name)}/${opening}/${index}`);
  if (!messages.some((m) => m.role === "user")) throw new CatalogError("prompt_failed", `prompt "${name}" of "${server}" gave no user message`, server);

  let marked = false;
  const entries = messages.map((message): OpeningEntry => {
    if (message.role === "assistant") return { kind: "assistant", text: message.text };
    const refs: AttachedEntry[] = message.attached.map((a) => {
      const mimeType = a.contents[0]?.mimeType;
      deps.store.put({ server, uri: a.uri, name: a.name, mimeType, source: "prompt", contents: a.contents });
      return { server, uri: a.uri, ...(a.name ? { name: a.name } : {}), ...(mimeType ? { mimeType } : {}) };
    });
    const first = !marked;
    marked = true;
    const all = first ? [...refs, ...attached] : refs;
    return {
      kind: "user",
      text: message.text,
      ...(all.length > 0 ? { attachments: all } : {}),
      ...(first && files.length > 0 ? { files } : {}),
      ...(first ? { prompt: { server, name, arguments: args } } : {}),
    };
  });
  return { entries, title: `/${name}` };
}
