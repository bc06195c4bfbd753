// What the Worker's catalog routes ask of a session (src/http/session-catalog.ts):
// the resources, resource templates and prompts of the servers this session has
// turned on, and completion for one argument. Answers are plain data or a typed
// error's public form (RPC carries no classes).
import {
  complete,
  listPrompts,
  listResources,
  listTemplates,
  type CatalogPrompt,
  type CatalogResource,
  type CatalogTemplate,
  type CompleteInput,
  type Completion,
} from "../mcp/catalog";
import { EdgehostError, type PublicError } from "../shared/errors";
import type { SessionAttachments } from "./attachments";
import type { SessionMcp } from "./mcp/session-mcp";
import { errorMessage } from "../shared/logger";

export type CatalogKind = "resources" | "resource-templates" | "prompts";
export type CatalogList = { resources: CatalogResource[] } | { resourceTemplates: CatalogTemplate[] } | { prompts: CatalogPrompt[] };
export type CatalogOutcome<T> = { ok: true; body: T } | { ok: false; error: PublicError };

export function catalogList(mcp: SessionMcp, kind: CatalogKind): CatalogList {
  const host = mcp.host();
  const servers = mcp.enabledServers();
  if (kind === "resources") return { resources: listResources(host, servers) };
  if (kind === "resource-templates") return { resourceTemplates: listTemplates(host, servers) };
  return { prompts: listPrompts(host, servers) };
}

export async function catalogComplete(attachments: SessionAttachments, mcp: SessionMcp, input: CompleteInput): Promise<CatalogOutcome<Completion>> {
  try {
    attachments.checkServer(input.server);
    return { ok: true, body: await complete(mcp.host(), input) };
  } catch (error) {
    if (error instanceof EdgehostError) return { ok: false, error: error.toPublic() };
    return { ok: false, error: { code: "protocol", message: `MCP server "${input.server}" could not complete: ${errorMessage(error)}` } };
  }
}
