// 2026-07-28 at /mcp: the SDK's stateless handler, one per app object, a fresh `Server`
// per request. 2025 traffic never reaches it (GatewayApp routes it to legacy-lane.ts first);
// `subscriptions/listen` streams hear list_changed through its bus (`notify`).
import type { McpHttpHandler, Server } from "@modelcontextprotocol/server";
import type { ServerLib } from "./server-lib";
import { type StreamWatch, watchedBus } from "./stream-watch";

/** Listen streams keep the object in memory: a few per app are plenty. */
const MAX_SUBSCRIPTIONS = 16;

export function createModernLane(lib: ServerLib, surface: () => Promise<Server>, onerror: (error: Error) => void, watch: StreamWatch): McpHttpHandler {
  // Each listen stream subscribes to the bus while it is open: the app watches the person's servers meanwhile.
  const bus = watchedBus(new lib.InMemoryServerEventBus(onerror), watch);
  return lib.createMcpHandler(() => surface(), { legacy: "reject", maxSubscriptions: MAX_SUBSCRIPTIONS, onerror, bus });
}
