// Seed 001's acceptance scenario, on the path the Worker takes: an mcp.json with the
// filesystem server and brave-search, served by the real bridge and read by the host
// from the same file (stdio entries routed through the bridge); list servers and
// capabilities, check every expected tool with its parameter names and types, shut
// down cleanly with no child process left.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { routeStdioThroughBridge } from "../../src/mcp/bridge-routing";
import { loadMcpConfigFile } from "../../src/shared/mcp-config/config-file";
import { childrenOf, startBridge } from "../fixtures/bridge";
import { isAlive, testHost } from "../fixtures/host";
import { braveBin, filesystemBin } from "../fixtures/servers";

type Params = Record<string, string>;
const FILESYSTEM: Record<string, Params> = {
  read_text_file: { path: "string", tail: "number", head: "number" },
  read_media_file: { path: "string" },
  read_multiple_files: { paths: "array" },
  write_file: { path: "string", content: "string" },
  edit_file: { path: "string", edits: "array", dryRun: "boolean" },
  create_directory: { path: "string" },
  list_directory: { path: "string" },
  list_directory_with_sizes: { path: "string", sortBy: "string" },
  directory_tree: { path: "string", excludePatterns: "array" },
  move_file: { source: "string", destination: "string" },
  search_files: { path: "string", pattern: "string", excludePatterns: "array" },
  get_file_info: { path: "string" },
  list_allowed_directories: {},
};
const BRAVE: Record<string, Params> = {
  brave_web_search: { query: "string", count: "integer", offset: "integer" },
  brave_local_search: { query: "string", count: "integer" },
  brave_video_search: { query: "string" },
  brave_image_search: { query: "string", count: "integer" },
  brave_news_search: { query: "string" },
  brave_summarizer: { key: "string" },
};

it("serves filesystem and brave-search from mcp.json through the bridge, lists their tools and parameters, and shuts down with no child left", async () => {
  const root = mkdtempSync(join(tmpdir(), "acceptance-root-"));
  const env = { BRAVE_API_KEY: process.env.BRAVE_API_KEY || "test-key-not-used" };
  const bridge = await startBridge(
    {
      filesystem: { type: "stdio", command: process.execPath, args: [filesystemBin, root] },
      "brave-search": { type: "stdio", command: process.execPath, args: [braveBin], env: { BRAVE_API_KEY: "${BRAVE_API_KEY}" } },
    },
    ["--log-level", "warn"],
    { env },
  );
  onTestFinished(async () => void (await bridge.stop()));
  const config = await loadMcpConfigFile(bridge.configPath, { ...process.env, ...env });
  const { host } = testHost();
  expect(await host.connect(routeStdioThroughBridge(config, { url: bridge.url, token: bridge.token }))).toEqual({
    ready: ["filesystem", "brave-search"],
    failed: [],
  });

  const servers = host.listCapabilities();
  expect(servers.map((s) => s.name)).toEqual(["filesystem", "brave-search"]);
  const pids = childrenOf(bridge.pid);
  expect(pids).toHaveLength(2);
  expect(pids.every(isAlive)).toBe(true);

  for (const [server, expected] of [
    ["filesystem", FILESYSTEM],
    ["brave-search", BRAVE],
  ] as const) {
    const tools = servers.find((s) => s.name === server)?.tools ?? [];
    for (const [tool, params] of Object.entries(expected)) {
      const found = tools.find((t) => t.name === tool);
      expect(found, `${server}.${tool}`).toBeDefined();
      const properties = (found?.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
      for (const [param, type] of Object.entries(params)) {
        expect(properties[param]?.type, `${server}.${tool}(${param})`).toBe(type);
      }
    }
  }
  expect(servers.find((s) => s.name === "brave-search")?.tools.find((t) => t.name === "brave_web_search")?.inputSchema.required).toEqual(["query"]);

  await host.close();
  expect(host.servers().map((s) => s.state)).toEqual(["closed", "closed"]);
  expect((await bridge.health()).servers).toMatchObject({ filesystem: { sessions: 0 }, "brave-search": { sessions: 0 } });
  expect(await bridge.stop()).toBe(0);
  expect(pids.filter(isAlive)).toEqual([]);
});
