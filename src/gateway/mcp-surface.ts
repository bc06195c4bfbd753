// The MCP server a connected app talks to: a low-level v2 `Server` made fresh for each
// 2026 request (createMcpHandler) or each 2025 session (legacy-lane.ts), whose handlers
// answer from the app's parts. tools/list comes from the person's catalogue (the account's
// discovery rows while connections open); prompts and resources need the connections.
import type { ServerContext, Server } from "@modelcontextprotocol/server";
import type { ToolView } from "../mcp/capabilities";
import { EdgehostError } from "../shared/errors";
import { askCodec } from "./approval-ask";
import { gateCall, GatewayRpcError, refusal } from "./call-gate";
import { ToolCatalogue } from "./catalogue";
import type { GatewayParts } from "./gateway-parts";
import type { HeldApprovals } from "./held-approval";
import type { ServerLib } from "./server-lib";
import { addForwarding, offersCompletions } from "./surface-forwarding";

/** MCP's code for a resource the server does not have (spec: server/resources). */
const RESOURCE_NOT_FOUND = -32002;

const catalogues = new WeakMap<readonly ToolView[], ToolCatalogue>();

/** The catalogue of the tools the app's parts offer now (one per tool list: the list is kept until it changes). */
export function catalogueOf(parts: GatewayParts): ToolCatalogue {
  const views = parts.mcp.tools();
  let catalogue = catalogues.get(views);
  if (!catalogue) catalogues.set(views, (catalogue = new ToolCatalogue(views, parts.runtime.settings.MCP_GATEWAY_NAMES)));
  return catalogue;
}

function instructions(parts: GatewayParts): string {
  const servers = parts.mcp.enabledServers();
  const lines = servers.map((name) => `- ${name}: its tools are named ${name}__<tool>`);
  return [`${parts.record.owner.name || "Your"} MCP servers on edgehost, as one server.`, ...lines].join("\n");
}

/** `held`: the app's held questions, for a client that cannot ask its person (held-approval.ts). */
export function createSurface(lib: ServerLib, parts: GatewayParts, held?: HeldApprovals): Server {
  const server = new lib.Server(
    { name: "edgehost", title: `${parts.record.owner.name || parts.record.owner.id}'s servers on edgehost`, version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        logging: {},
        ...(offersCompletions(parts) ? { completions: {} } : {}),
      },
      instructions: instructions(parts),
    },
  );

  server.setRequestHandler("tools/list", async () => {
    await parts.prepare(true);
    return { tools: catalogueOf(parts).tools };
  });

  server.setRequestHandler("tools/call", async (request, ctx) => {
    await parts.prepare();
    const { name, arguments: args = {} } = request.params;
    const ask = { lib, codec: askCodec(lib, parts.store), appName: parts.record.client.name, ctx, sessionCapabilities: server.getClientCapabilities() };
    const heldFor = held && { approvals: held, origin: parts.runtime.settings.PUBLIC_ORIGIN ?? originOf(ctx) };
    return gateCall(parts, () => catalogueOf(parts), name, args, { signal: ctx.mcpReq.signal, onProgress: progressSender(ctx), ask, held: heldFor });
  });

  addForwarding(server, parts, () => connected(parts), answer);

  server.setRequestHandler("resources/list", async () => ({ resources: (await connected(parts)).flatMap((c) => c.resources) }));

  server.setRequestHandler("resources/templates/list", async () => ({
    resourceTemplates: (await connected(parts)).flatMap((c) => c.resourceTemplates),
  }));

  server.setRequestHandler("resources/read", async (request, ctx) => {
    await connected(parts);
    return answer(() => parts.mcp.host().readResource(request.params.uri, { signal: ctx.mcpReq.signal }));
  });

  return server;
}

/** The servers' full capabilities (prompts and resources are not in the catalogue): the connections opened. */
async function connected(parts: GatewayParts) {
  await parts.prepare();
  await parts.mcp.ensureConnected();
  const enabled = new Set(parts.mcp.enabledServers());
  return parts.mcp
    .host()
    .listCapabilities()
    .filter((c) => enabled.has(c.name));
}

/** A prompt or resource read: the host's typed errors as JSON-RPC errors with their public message. */
async function answer<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof EdgehostError) {
      const pub = error.toPublic();
      if (pub.code === "not_found") throw new GatewayRpcError(RESOURCE_NOT_FOUND, pub.message);
      throw refusal(pub.code, pub.message);
    }
    throw refusal("internal", "the request failed inside edgehost");
  }
}

/** The origin the client called /mcp at (forward.ts keeps the request's URL): where the person's page is. */
function originOf(ctx: ServerContext): string {
  const url = ctx.http?.req?.url;
  return url ? new URL(url).origin : "";
}

/** Progress of the upstream call, passed on when the client asked for it (a progress token). */
function progressSender(ctx: ServerContext) {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  return (progress: { progress: number; total?: number; message?: string }) =>
    void ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, ...progress } }).catch(() => undefined);
}
