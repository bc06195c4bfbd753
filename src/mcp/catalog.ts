// What servers offer a person (not the model): their resources, resource templates
// and prompts as plain data for the page, argument completion (completion/complete,
// only where a server advertises `completions`), and resource subscriptions (only
// where it advertises `resources.subscribe`). The lists come from the host's
// discovery, which walks every page of resources/list, resources/templates/list and
// prompts/list and refreshes on list_changed.
import { UriTemplate } from "@modelcontextprotocol/client";
import { z } from "zod";
import { EdgehostError, type PublicError } from "../shared/errors";
import type { ServerConnection } from "./connection";
import type { McpHost } from "./host";

/** What every listed item has: the server that lists it and how it names itself. */
const CatalogItemSchema = z.object({
  server: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
});
export const CatalogResourceSchema = CatalogItemSchema.extend({ uri: z.string(), mimeType: z.string().optional() });
export const CatalogTemplateSchema = CatalogItemSchema.extend({
  uriTemplate: z.string(),
  mimeType: z.string().optional(),
  /** The template's variables, in order: the page's form fields. */
  variables: z.array(z.string()),
  /** Whether the server answers completion/complete (for this form's suggestions). */
  completions: z.boolean(),
});
export const CatalogPromptSchema = CatalogItemSchema.extend({
  arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean() })),
  completions: z.boolean(),
});
export type CatalogResource = z.infer<typeof CatalogResourceSchema>;
export type CatalogTemplate = z.infer<typeof CatalogTemplateSchema>;
export type CatalogPrompt = z.infer<typeof CatalogPromptSchema>;

/** A completion request as the page sends it (validated at the HTTP edge). */
export const CompleteInputSchema = z.object({
  server: z.string().min(1).max(64),
  ref: z.discriminatedUnion("type", [
    z.object({ type: z.literal("ref/prompt"), name: z.string().min(1).max(256) }),
    z.object({ type: z.literal("ref/resource"), uri: z.string().min(1).max(2048) }),
  ]),
  argument: z.object({ name: z.string().min(1).max(256), value: z.string().max(1024) }),
  /** Arguments already filled in (a later argument's suggestions may depend on them). */
  context: z.record(z.string().max(256), z.string().max(1024)).optional(),
});
export type CompleteInput = z.infer<typeof CompleteInputSchema>;

export const CompletionSchema = z.object({ values: z.array(z.string()), total: z.number().optional(), hasMore: z.boolean().optional() });
export type Completion = z.infer<typeof CompletionSchema>;

export type CatalogErrorCode =
  | "unknown_server"
  | "server_disabled"
  | "server_unavailable"
  | "resource_not_found"
  | "prompt_not_found"
  | "argument_missing"
  | "argument_unknown"
  | "prompt_failed"
  | "completions_unsupported"
  | "too_many_attachments";

/** A catalog request that cannot be answered, saying which part was wrong. */
export class CatalogError extends EdgehostError {
  constructor(
    readonly code: CatalogErrorCode,
    message: string,
    readonly server?: string,
  ) {
    super(message);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, ...(this.server ? { server: this.server } : {}) };
  }
}

// The SDK cuts values at 100; the page shows a short list anyway.
const MAX_COMPLETION_VALUES = 100;

/** The fields every catalog item has (CatalogItemSchema), from a server's listing. */
function item(server: string, listed: { name: string; title?: string; description?: string }) {
  return { server, name: listed.name, title: listed.title, description: listed.description };
}

export function listResources(host: McpHost, servers: readonly string[]): CatalogResource[] {
  return ready(host, servers).flatMap((c) => c.resources.map((r) => ({ ...item(c.name, r), uri: r.uri, mimeType: r.mimeType })));
}

export function listTemplates(host: McpHost, servers: readonly string[]): CatalogTemplate[] {
  return ready(host, servers).flatMap((c) =>
    c.resourceTemplates.map((t) => ({
      ...item(c.name, t),
      uriTemplate: t.uriTemplate,
      mimeType: t.mimeType,
      variables: templateVariables(t.uriTemplate),
      completions: !!c.serverCapabilities?.completions,
    })),
  );
}

export function listPrompts(host: McpHost, servers: readonly string[]): CatalogPrompt[] {
  return ready(host, servers).flatMap((c) =>
    c.prompts.map((p) => ({
      ...item(c.name, p),
      arguments: (p.arguments ?? []).map((a) => ({ name: a.name, description: a.description, required: a.required ?? false })),
      completions: !!c.serverCapabilities?.completions,
    })),
  );
}

/** The prompt `name` of `server` as the catalog knows it, or a typed error. */
export function findPrompt(host: McpHost, server: string, name: string): CatalogPrompt {
  const prompt = listPrompts(host, [server]).find((p) => p.name === name);
  if (!prompt) throw new CatalogError("prompt_not_found", `MCP server "${server}" has no prompt "${name}"`, server);
  return prompt;
}

/** Suggestions for one argument of a prompt or resource template. */
export async function complete(host: McpHost, input: CompleteInput, signal?: AbortSignal): Promise<Completion> {
  const connection = readyConnection(host, input.server);
  if (!connection.serverCapabilities?.completions) {
    throw new CatalogError("completions_unsupported", `MCP server "${input.server}" does not offer completions`, input.server);
  }
  const client = await connection.ready();
  const result = await client.complete(
    { ref: input.ref, argument: input.argument, ...(input.context ? { context: { arguments: input.context } } : {}) },
    { signal, timeout: connection.config.timeoutMs },
  );
  const { values, total, hasMore } = result.completion;
  return { values: values.slice(0, MAX_COMPLETION_VALUES), total, hasMore };
}

/** Whether `server` would tell us about changes to a resource. */
export function canSubscribe(host: McpHost, server: string): boolean {
  const connection = host.connectionFor(server);
  return connection?.state === "ready" && !!connection.serverCapabilities?.resources?.subscribe;
}

export async function subscribe(host: McpHost, server: string, uri: string): Promise<void> {
  const connection = readyConnection(host, server);
  const client = await connection.ready();
  // resources/subscribe on 2025; on 2026 the uri joins the listen stream's filter (change-feed.ts).
  await connection.changes.subscribe(client, uri, connection.config.timeoutMs);
}

export async function unsubscribe(host: McpHost, server: string, uri: string): Promise<void> {
  const connection = host.connectionFor(server);
  // A server that went away forgot the subscription with its session.
  if (connection?.state !== "ready" || !connection.client) return;
  await connection.changes.unsubscribe(connection.client, uri, connection.config.timeoutMs);
}

/** A name for a resource no list names, from the template it matches: "Dynamic Text Resource 5". */
export function templatedName(host: McpHost, server: string, uri: string): string | undefined {
  for (const t of host.connectionFor(server)?.resourceTemplates ?? []) {
    let variables: Record<string, string | string[]> | null = null;
    try {
      variables = new UriTemplate(t.uriTemplate).match(uri);
    } catch {
      variables = null;
    }
    if (variables) return [t.title ?? t.name, ...Object.values(variables).flat()].join(" ");
  }
  return undefined;
}

/** The variable names of a URI template (`demo://x/{id}` → ["id"]); none when it does not parse. */
export function templateVariables(uriTemplate: string): string[] {
  try {
    return new UriTemplate(uriTemplate).variableNames;
  } catch {
    return [];
  }
}

function readyConnection(host: McpHost, server: string): ServerConnection {
  const connection = host.connectionFor(server);
  if (!connection) throw new CatalogError("unknown_server", `no MCP server is named "${server}"`, server);
  if (connection.state !== "ready") {
    throw new CatalogError(
      "server_unavailable",
      `MCP server "${server}" is ${connection.state}${connection.lastError ? `: ${connection.lastError}` : ""}`,
      server,
    );
  }
  return connection;
}

function ready(host: McpHost, servers: readonly string[]): ServerConnection[] {
  return servers.flatMap((name) => {
    const connection = host.connectionFor(name);
    return connection?.state === "ready" ? [connection] : [];
  });
}
