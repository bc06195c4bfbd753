// Requests a server sends to the host (sampling, elicitation, roots). The host
// advertises a client capability only when a handler for it is registered before
// connecting, so a server never asks for something nobody will answer.
import type { ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, Root } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../shared/mcp-config/config";
import { rpcRefusal } from "./rpc-refusal";
import type { UrlElicitationRequiredHandler } from "./url-elicitation-required";

export interface ServerRequestContext {
  /** Name of the server that asked. */
  server: string;
  signal: AbortSignal;
}

export interface ServerRequestHandlers {
  sampling?: (request: ServerRequestContext & { params: CreateMessageRequest["params"] }) => Promise<CreateMessageResult>;
  elicitation?: (request: ServerRequestContext & { params: ElicitRequest["params"] }) => Promise<ElicitResult>;
  roots?: (request: { server: string }) => Promise<Root[]> | Root[];
  /**
   * With it the host also declares URL-mode elicitation (MCP 2025-11-25, 2026-07-28): the elicitation
   * handler gets `mode: "url"` requests too, and this hears `notifications/elicitation/complete`
   * (2025-11-25 only: 2026 has no such notification, its retry carries the outcome).
   */
  elicitationComplete?: (request: { server: string; elicitationId: string }) => void;
  /** A tool call refused with -32042 until the person finished at a URL: true retries it once (url-elicitation-required.ts). */
  urlElicitationRequired?: UrlElicitationRequiredHandler;
}

export function capabilitiesFor(handlers: ServerRequestHandlers): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (handlers.sampling) capabilities.sampling = {};
  // URL mode only for a host that hears completions (a page that opens the URL after the person agrees).
  // applyDefaults: a field the user left out of an accepted form is sent with the schema's
  // `default` (the SDK's Client fills them in on the answer's way back, so the server gets
  // what the pre-filled form showed).
  if (handlers.elicitation) capabilities.elicitation = { form: { applyDefaults: true }, ...(handlers.elicitationComplete ? { url: {} } : {}) };
  if (handlers.roots) capabilities.roots = { listChanged: false };
  return capabilities;
}

/**
 * The requests a chat's host answers (src/session/mcp/session-host.ts registers one handler
 * each). A host that only looks at a server (testing it before it is saved) registers the
 * same kinds, refusing each (`refusingChatHandlers`), so the server offers it the tools it
 * offers a chat: server-everything lists 12 tools to a bare client and 16 to a chat, and
 * the page showed both counts for one server. A kind added here must be added to both.
 */
export type ChatRequestHandlers = Required<Pick<ServerRequestHandlers, "sampling" | "elicitation" | "elicitationComplete" | "urlElicitationRequired">>;

/** Every kind a chat answers, each refused: for a host that lists a server's tools and closes. */
export function refusingChatHandlers(): ChatRequestHandlers {
  const refuse = (): never => {
    throw rpcRefusal("unsupported", "this connection only tests the server: it answers no requests");
  };
  return {
    sampling: async () => refuse(),
    elicitation: async () => refuse(),
    elicitationComplete: () => undefined,
    urlElicitationRequired: async () => refuse(),
  };
}

/**
 * What one server is offered: the handlers' capabilities, plus roots (with list_changed)
 * when its entry lists roots. A server without configured roots is not told the client
 * has roots (unless a roots handler serves all): server-filesystem, told so, would give
 * up its own folders for whatever list it gets, even an empty one.
 */
export function capabilitiesForServer(base: ClientCapabilities, server: ServerConfig): ClientCapabilities {
  return server.roots ? { ...base, roots: { listChanged: true } } : base;
}
