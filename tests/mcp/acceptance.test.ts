// Seed 001's acceptance scenario: an mcp.json with the filesystem server and
// brave-search, loaded from a file; start, list servers and capabilities, check
// every expected tool with its parameter names and types, shut down cleanly.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadMcpConfigFile } from "../../src/shared/mcp-config/config-file";
import { McpHost } from "../../src/mcp/host";
import { nodeTransports } from "../../src/mcp/node-transports";
import { isAlive } from "../fixtures/host";
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

it("starts filesystem and brave-search from mcp.json, lists their tools and parameters, and shuts down with no child left", async () => {
  const dir = mkdtempSync(join(tmpdir(), "acceptance-"));
  const root = mkdtempSync(join(tmpdir(), "acceptance-root-"));
  const file = join(dir, "mcp.json");
  writeFileSync(
    file,
    JSON.stringify(
      {
        servers: {
          filesystem: { type: "stdio", command: process.execPath, args: [filesystemBin, root] },
          "brave-search": { type: "stdio", command: process.execPath, args: [braveBin], env: { BRAVE_API_KEY: "${BRAVE_API_KEY}" } },
        },
      },
      null,
      2,
    ),
  );
  const config = await loadMcpConfigFile(file, { ...process.env, BRAVE_API_KEY: process.env.BRAVE_API_KEY || "test-key-not-used" });
  const host = new McpHost({ transports: nodeTransports() });
  await host.connect(config, { require: "all" });

  const servers = host.listCapabilities();
  expect(servers.map((s) => s.name)).toEqual(["filesystem", "brave-search"]);
  const pids = host.servers().map((s) => s.pid ?? 0);
  expect(pids.every((pid) => pid > 0 && isAlive(pid))).toBe(true);

  for (const [server, expected] of [["filesystem", FILESYSTEM], ["brave-search", BRAVE]] as const) {
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
  expect(pids.filter(isAlive)).toEqual([]);
});
