// The requests /mcp passes on to one of the person's servers by what the client named:
// prompts (by the name prompts/list gave), completion/complete (for a prompt or a resource
// template) and resources/subscribe|unsubscribe (to the server a read of the uri goes to).
// Prompt names follow the tools' rule (catalogue.ts): `server.prompt`, or with
// MCP_GATEWAY_NAMES=bare the prompt's own name when no other offered prompt shares it.
// The way back from a name is this map's, never parsed from the name.
import type { Server } from "@modelcontextprotocol/server";
import type { ServerCapabilitiesView } from "../mcp/capabilities";
import { complete, subscribe, unsubscribe } from "../mcp/catalog";
import { NotFoundError } from "../mcp/errors";
import { promptName } from "./catalogue";
import type { GatewayParts } from "./gateway-parts";

interface PromptRef {
  server: string;
  prompt: string;
}

/** The offered prompts under the names a client sees, and the way back. */
export class PromptNames {
  private readonly back = new Map<string, PromptRef>();
  readonly listed: { name: string; view: ServerCapabilitiesView["prompts"][number] }[] = [];

  constructor(capabilities: readonly ServerCapabilitiesView[], names: "chat" | "bare") {
    const counts = new Map<string, number>();
    for (const c of capabilities) for (const p of c.prompts) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
    const qualified = new Set(capabilities.flatMap((c) => c.prompts.map((p) => promptName(c.name, p.name))));
    for (const c of capabilities) {
      for (const p of c.prompts) {
        // A bare name that reads like another server's qualified one would be ambiguous: qualified it stays.
        const bare = names === "bare" && counts.get(p.name) === 1 && !qualified.has(p.name);
        const name = bare ? p.name : promptName(c.name, p.name);
        this.back.set(name, { server: c.name, prompt: p.name });
        this.listed.push({ name, view: p });
      }
    }
  }

  resolve(name: string): PromptRef | undefined {
    return this.back.get(name);
  }
}

type Connected = () => Promise<ServerCapabilitiesView[]>;

/** Whether /mcp declares `completions`: some offered server answers them, or none is connected yet (not known: declared, answered empty). */
export function offersCompletions(parts: GatewayParts): boolean {
  const host = parts.mcp.host();
  const states = parts.mcp.enabledServers().map((name) => host.connectionFor(name));
  const ready = states.filter((c) => c?.state === "ready");
  if (ready.length === 0) return true;
  return ready.some((c) => !!c?.serverCapabilities?.completions);
}

/** prompts/list, prompts/get, completion/complete and resources/(un)subscribe on `server`. */
export function addForwarding(server: Server, parts: GatewayParts, connected: Connected, answer: <T>(read: () => Promise<T>) => Promise<T>): void {
  const names = async () => new PromptNames(await connected(), parts.runtime.settings.MCP_GATEWAY_NAMES);

  server.setRequestHandler("prompts/list", async () => ({
    prompts: (await names()).listed.map(({ name, view }) => ({ ...view, name })),
  }));

  server.setRequestHandler("prompts/get", async (request, ctx) => {
    const { name, arguments: args = {} } = request.params;
    const ref = (await names()).resolve(name);
    return answer(() => {
      if (!ref) throw new NotFoundError("prompt", name);
      return parts.mcp.host().getPrompt(promptName(ref.server, ref.prompt), args, { signal: ctx.mcpReq.signal });
    });
  });

  if (server.getCapabilities().completions) {
    server.setRequestHandler("completion/complete", async (request, ctx) => {
      const { ref, argument, context } = request.params;
      const capabilities = await connected();
      return answer(async () => {
        const target =
          ref.type === "ref/prompt"
            ? promptTarget(new PromptNames(capabilities, parts.runtime.settings.MCP_GATEWAY_NAMES), ref.name)
            : templateTarget(parts, capabilities, ref.uri);
        if (!target) throw new NotFoundError(ref.type === "ref/prompt" ? "prompt" : "resource", ref.type === "ref/prompt" ? ref.name : ref.uri);
        if (!parts.mcp.host().connectionFor(target.server)?.serverCapabilities?.completions) return { completion: { values: [] } };
        const input = { server: target.server, ref: target.ref, argument, ...(context?.arguments ? { context: context.arguments } : {}) };
        return { completion: await complete(parts.mcp.host(), input, ctx.mcpReq.signal) };
      });
    });
  }

  server.setRequestHandler("resources/subscribe", async (request) => {
    const uri = request.params.uri;
    await connected();
    return answer(async () => {
      const owner = parts.mcp.host().resourceServer(uri);
      if (!owner) throw new NotFoundError("resource", uri);
      await subscribe(parts.mcp.host(), owner, uri);
      return {};
    });
  });

  server.setRequestHandler("resources/unsubscribe", async (request) => {
    const uri = request.params.uri;
    await connected();
    return answer(async () => {
      const owner = parts.mcp.host().resourceServer(uri);
      if (owner) await unsubscribe(parts.mcp.host(), owner, uri);
      return {};
    });
  });
}

function promptTarget(names: PromptNames, name: string) {
  const ref = names.resolve(name);
  return ref && { server: ref.server, ref: { type: "ref/prompt" as const, name: ref.prompt } };
}

/** The server offering the template `uri` (or, for a plain uri, the server a read of it goes to). */
function templateTarget(parts: GatewayParts, capabilities: readonly ServerCapabilitiesView[], uri: string) {
  const server = capabilities.find((c) => c.resourceTemplates.some((t) => t.uriTemplate === uri))?.name ?? parts.mcp.host().resourceServer(uri);
  return server && { server, ref: { type: "ref/resource" as const, uri } };
}
