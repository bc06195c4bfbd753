// The one place the Worker loads the MCP server SDK. Its module top level preloads every
// protocol schema (shimsWorkerd.mjs), CPU a chat-only isolate must never pay: so it is
// imported dynamically, once per isolate, by the first /mcp request an app object serves.
// tests/architecture/imports.test.ts holds every other file to type-only imports of it.

export type ServerLib = typeof import("@modelcontextprotocol/server");

let loading: Promise<ServerLib> | undefined;

export function serverLib(): Promise<ServerLib> {
  loading ??= import("@modelcontextprotocol/server").catch((error: unknown) => {
    loading = undefined; // a failed load is tried again by the next request
    throw error;
  });
  return loading;
}
