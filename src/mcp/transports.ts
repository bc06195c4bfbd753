// How the host reaches a server. A factory returns candidates tried in order, so
// an `http` server that turns out to be an old SSE-only server is reached through
// the legacy transport without the config saying so. Runtime-neutral; stdio servers
// are reached through the local bridge, over HTTP like any other.
import { SdkHttpError, SSEClientTransport, StreamableHTTPClientTransport, type OAuthClientProvider, type Transport } from "@modelcontextprotocol/client";
import type { RemoteServerConfig, ServerConfig } from "../shared/mcp-config/config";
import { watchStreams } from "./stream-watch";
import { answeredInJsonRpc } from "./version-refusal";

export type TransportKind = "stdio" | "streamable-http" | "sse" | "in-memory";

export interface TransportHandle {
  transport: Transport;
  kind: TransportKind;
  /** Last lines the server wrote to stderr (stdio only), for startup errors. */
  stderrTail?: () => string;
  pid?: () => number | null;
}

/** What the connection asks to hear from the transport it creates. */
export interface TransportHooks {
  /** A server's event stream broke before it ended (stream-watch.ts). */
  onStreamBroken?: (error: unknown) => void;
}

export interface TransportCandidate {
  kind: TransportKind;
  create(hooks?: TransportHooks): TransportHandle;
}

export type TransportFactory = (server: ServerConfig) => TransportCandidate[];

export interface RemoteTransportOptions {
  fetch?: typeof fetch;
  /** A fetch of its own for some servers (a paired machine's, relayed by the owner's account). */
  fetchFor?: (server: RemoteServerConfig) => typeof fetch | undefined;
  /** The OAuth client for a server (a fresh one per connection attempt), or undefined for none. */
  auth?: (server: RemoteServerConfig) => OAuthClientProvider | undefined;
  /** The W3C trace id of the work a request is for (a turn), if any: each request then carries a `traceparent`. */
  traceId?: () => string | undefined;
}

/** `fetch` that adds `traceparent: 00-{trace}-{new span}-01` while `traceId()` names one. */
function traced(base: typeof fetch, traceId: () => string | undefined): typeof fetch {
  return (input, init) => {
    const trace = traceId();
    if (!trace) return base(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const span = [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, "0")).join("");
    headers.set("traceparent", `00-${trace}-${span}-01`);
    return base(input, { ...init, headers });
  };
}

export function remoteTransports(server: RemoteServerConfig, options: RemoteTransportOptions = {}): TransportCandidate[] {
  const url = new URL(server.url);
  const requestInit: RequestInit = { headers: server.headers };
  const own = options.fetchFor?.(server) ?? options.fetch;
  const given = options.traceId ? traced(own ?? ((input, init) => fetch(input, init)), options.traceId) : own;
  const fetchFor = (hooks?: TransportHooks): typeof fetch | undefined =>
    hooks?.onStreamBroken ? watchStreams(given ?? ((input, init) => fetch(input, init)), hooks.onStreamBroken) : given;
  const streamable: TransportCandidate = {
    kind: "streamable-http",
    create: (hooks) => ({
      kind: "streamable-http",
      transport: new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchFor(hooks), authProvider: options.auth?.(server) }),
    }),
  };
  const sse: TransportCandidate = {
    kind: "sse",
    create: (hooks) => {
      const fetchImpl = fetchFor(hooks);
      return {
        kind: "sse",
        transport: new SSEClientTransport(url, {
          requestInit,
          fetch: fetchImpl,
          eventSourceInit: fetchImpl ? { fetch: fetchImpl } : undefined,
          authProvider: options.auth?.(server),
        }),
      };
    },
  };
  return server.transport === "sse" ? [sse] : [streamable, sse];
}

/**
 * The MCP spec's backwards-compatibility rule: a POST of `initialize` answered with
 * 4xx (typically 404 or 405) means the server predates Streamable HTTP. Auth
 * failures are real errors, not a reason to try another transport, and so is a 4xx
 * carrying a JSON-RPC error (a version refusal, a bad request): only a Streamable
 * HTTP server answers that way.
 */
export function shouldFallBack(error: unknown): boolean {
  return (
    error instanceof SdkHttpError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403 && !answeredInJsonRpc(error)
  );
}

/** Remote-only factory for the Worker: stdio servers must already be routed through the bridge. */
export function workerTransports(options: RemoteTransportOptions = {}): TransportFactory {
  return (server) => {
    if (server.transport === "stdio") {
      throw new Error(`server "${server.name}" is stdio: route it through the local bridge`);
    }
    return remoteTransports(server, options);
  };
}
