// The SDK Client for one server connection: the capabilities the host offers, the
// answers to the server's own requests (sampling, elicitation, roots: passed to the
// session's handlers, or refused with the table's JSON-RPC code), and the notifications
// it listens to (list changes, resource updates, log lines).
import { Client, type ClientCapabilities, type Implementation, type Root } from "@modelcontextprotocol/client";
// The same validator in workerd and in Node, where the SDK's default is Ajv (it generates code, which workerd forbids).
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { errorMessage, type Logger } from "../shared/logger";
import type { ListKind } from "./discovery";
import { rpcRefusal } from "./rpc-refusal";
import type { ServerRequestHandlers } from "./server-requests";

export interface ServerClientOptions {
  server: string;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  handlers: () => ServerRequestHandlers;
  /** The roots this server is served, when its entry (or setRoots) names them; else the roots handler's. */
  roots: () => Root[] | undefined;
}

export function createServerClient(options: ServerClientOptions): Client {
  const { server, capabilities: caps, handlers } = options;
  // "auto": a `server/discover` probe first, so a 2026-07-28 server is spoken to in its own era (and its
  // questions arrive as input_required results, answered by the handlers below); a 2025 server gets the
  // plain `initialize` it gets today. A remembered verdict skips the probe (connect's `prior`, connection.ts).
  const client = new Client(options.clientInfo, {
    capabilities: caps,
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  if (caps.sampling) {
    client.setRequestHandler("sampling/createMessage", (request, ctx) => {
      const handler = handlers().sampling;
      if (!handler) throw rpcRefusal("unsupported", "sampling is not available");
      return handler({ server, params: request.params, signal: ctx.mcpReq.signal });
    });
  }
  if (caps.elicitation) {
    client.setRequestHandler("elicitation/create", (request, ctx) => {
      const handler = handlers().elicitation;
      if (!handler) throw rpcRefusal("unsupported", "elicitation is not available");
      return handler({ server, params: request.params, signal: ctx.mcpReq.signal });
    });
  }
  if (caps.elicitation?.url) {
    client.setNotificationHandler("notifications/elicitation/complete", (notification) => {
      handlers().elicitationComplete?.({ server, elicitationId: notification.params.elicitationId });
    });
  }
  if (caps.roots) {
    client.setRequestHandler("roots/list", async () => {
      const own = options.roots();
      if (own) return { roots: own };
      const handler = handlers().roots;
      return { roots: handler ? await handler({ server }) : [] };
    });
  }
  return client;
}

const SERVER_LEVELS: Record<string, "debug" | "info" | "warn" | "error"> = {
  debug: "debug",
  info: "info",
  notice: "info",
  warning: "warn",
  error: "error",
  critical: "error",
  alert: "error",
  emergency: "error",
};

export interface ClientEvents {
  server: string;
  logger: Logger;
  /** False once this client is no longer the connection's current one: its events are ignored. */
  current: () => boolean;
  closed: () => void;
  listChanged: (kind: ListKind) => void;
  resourceUpdated: (uri: string) => void;
}

export function listenTo(client: Client, events: ClientEvents): void {
  const { current, logger, server } = events;
  client.onclose = () => {
    if (current()) events.closed();
  };
  client.onerror = (error) => {
    if (current()) logger.debug("transport error", { server, error: errorMessage(error) });
  };
  const changed = (kind: ListKind) => () => {
    if (current()) events.listChanged(kind);
  };
  client.setNotificationHandler("notifications/tools/list_changed", changed("tools"));
  client.setNotificationHandler("notifications/prompts/list_changed", changed("prompts"));
  client.setNotificationHandler("notifications/resources/list_changed", changed("resources"));
  client.setNotificationHandler("notifications/resources/updated", (notification) => {
    if (current()) events.resourceUpdated(notification.params.uri);
  });
  // A server's own log messages, under its name at their level (MCP's eight syslog levels onto ours).
  client.setNotificationHandler("notifications/message", (notification) => {
    const { level, logger: source, data } = notification.params;
    const text = typeof data === "string" ? data : JSON.stringify(data);
    logger[SERVER_LEVELS[level] ?? "info"]("server log", { server, serverLevel: level, ...(source ? { logger: source } : {}), data: text?.slice(0, 1_000) });
  });
}
