// The frames a paired machine's bridge and the Worker exchange over the bridge's one
// outgoing WebSocket (`mcp-local-bridge connect`). The Worker tunnels each HTTP request a
// session makes to one of the machine's servers (`/servers/{name}/mcp`, Streamable HTTP)
// as `req`; the bridge answers with `head`, then `data` chunks, then `end` (or `fail`).
// Everything MCP carries (results, notifications, progress, cancellation, sampling,
// elicitation, roots) rides inside those exchanges, so the relay adds no protocol of its
// own. Both sides parse every frame with these schemas.
import { z } from "zod";

/** A machine name as the page shows it and as it prefixes its servers' names. */
export const MACHINE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
/** The server names a machine may announce (mcp.json's own rule). */
const SERVER = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/);
const HEADERS = z.array(z.tuple([z.string().max(256), z.string().max(8192)])).max(64);
/** One `data` frame's text at most: larger bodies are sent in several frames. */
export const MAX_CHUNK_CHARS = 512 * 1024;
export const MAX_SERVERS_PER_MACHINE = 100;
/** Requests in flight on one machine's socket; more are answered 503 by the Worker. */
export const MAX_IN_FLIGHT = 256;

/** Worker → bridge. */
export const ToBridgeSchema = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("req"),
    id: z.number().int().nonnegative(),
    method: z.enum(["GET", "POST", "DELETE"]),
    path: z.string().max(512),
    headers: HEADERS,
    body: z.string().optional(),
  }),
  /** The session went away (its stream was cancelled): stop the request. */
  z.object({ t: z.literal("abort"), id: z.number().int().nonnegative() }),
  /** Pairing ended on the Worker (revoked): the bridge forgets its credential and stops. */
  z.object({ t: z.literal("revoked") }),
]);
export type ToBridge = z.infer<typeof ToBridgeSchema>;

/** Bridge → Worker. */
export const ToWorkerSchema = z.discriminatedUnion("t", [
  z.object({ t: z.literal("hello"), servers: z.array(SERVER).max(MAX_SERVERS_PER_MACHINE) }),
  z.object({ t: z.literal("head"), id: z.number().int().nonnegative(), status: z.number().int().min(100).max(599), headers: HEADERS }),
  /** A whole answer in one frame: a JSON (not streamed) response that fits in one chunk, the common case. */
  z.object({
    t: z.literal("full"),
    id: z.number().int().nonnegative(),
    status: z.number().int().min(100).max(599),
    headers: HEADERS,
    body: z.string().max(MAX_CHUNK_CHARS),
  }),
  /** `seq`: the chunk's place in its answer (0, 1, …), so the Worker puts chunks in order whatever order it is handed them in. */
  z.object({
    t: z.literal("data"),
    id: z.number().int().nonnegative(),
    chunk: z.string().max(MAX_CHUNK_CHARS),
    seq: z.number().int().nonnegative().optional(),
  }),
  /** `chunks`: how many `data` frames the answer had; the body ends once all of them are in. */
  z.object({ t: z.literal("end"), id: z.number().int().nonnegative(), chunks: z.number().int().nonnegative().optional() }),
  z.object({ t: z.literal("fail"), id: z.number().int().nonnegative(), message: z.string().max(500) }),
]);
export type ToWorker = z.infer<typeof ToWorkerSchema>;

/**
 * The servers a machine offers, named already on its connect request (comma-separated), so
 * they are known before the socket opens; `hello` frames update them later (mcp.json reloads).
 */
export const SERVERS_HEADER = "x-edgehost-servers";

export function parseServersHeader(value: string | null): string[] | undefined {
  if (value === null) return undefined;
  const parsed = z
    .array(SERVER)
    .max(MAX_SERVERS_PER_MACHINE)
    .safeParse(value === "" ? [] : value.split(","));
  return parsed.success ? parsed.data : undefined;
}

/** Heartbeat text the Worker answers without waking its Durable Object (setWebSocketAutoResponse). */
export const PING = "ping";
export const PONG = "pong";

/** Headers a tunnelled request carries to the bridge; the rest (cookies, the Worker's own) stay behind. */
export const TUNNELLED_REQUEST_HEADERS = ["accept", "content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id", "traceparent"];
/** Headers of the bridge's answer that go back to the session. */
export const TUNNELLED_RESPONSE_HEADERS = ["content-type", "mcp-session-id", "allow", "cache-control"];
