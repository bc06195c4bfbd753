// The layers point one way, in both programs. Read from the import statements
// themselves (static, dynamic and type-only; relative and package imports, with the
// workspace packages resolved to their files), so a new import that breaks a rule fails
// here. src/: WebSocket frame → protocol → session → orchestrator → llm / mcp, with
// shared/ below them all. local-bridge/src/: the Node bridge, on src/shared only.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../fixtures/servers";

const IMPORT = /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^import\s*["']([^"']+)["']/gms;

/** Workspace packages, resolved to the files they export (src/shared/package.json, local-bridge/package.json). */
const WORKSPACE: Record<string, string> = { "@edgehost/shared/": "src/shared/", "mcp-local-bridge/": "local-bridge/src/" };

/**
 * Each folder of src/ (or top-level file), the folders it may import and the npm
 * packages it may use. A folder missing here fails the test: say its rule when adding it.
 */
const SRC_RULES: Record<string, { folders: string[]; packages: string[] }> = {
  shared: { folders: [], packages: ["zod", "jsonc-parser", "node:fs", "node:path"] },
  generated: { folders: [], packages: [] },
  files: { folders: ["shared"], packages: ["zod"] },
  config: { folders: ["llm", "push", "shared"], packages: ["zod"] },
  push: { folders: ["shared"], packages: ["@block65/webcrypto-web-push", "zod"] },
  mcp: { folders: ["shared"], packages: ["@modelcontextprotocol/client", "@cfworker/json-schema", "zod"] },
  llm: { folders: ["shared"], packages: ["@anthropic-ai/sdk", "@google/genai", "eventsource-parser", "zod"] },
  orchestrator: { folders: ["llm", "mcp", "shared"], packages: ["@modelcontextprotocol/client"] },
  protocol: { folders: ["mcp", "shared"], packages: ["zod"] },
  approval: { folders: ["orchestrator", "protocol", "shared"], packages: ["@modelcontextprotocol/client"] },
  audit: { folders: ["shared"], packages: ["zod", "node:crypto"] },
  machines: { folders: ["shared"], packages: ["cloudflare:workers", "zod"] },
  ops: { folders: ["config"], packages: ["cloudflare:workers", "zod"] },
  share: { folders: ["config", "files", "protocol", "shared"], packages: ["cloudflare:workers", "hono", "markdown-it", "zod"] },
  users: {
    folders: ["audit", "config", "files", "llm", "machines", "mcp", "push", "share", "shared"],
    packages: ["@modelcontextprotocol/client", "cloudflare:workers", "zod"],
  },
  servers: { folders: ["config", "generated", "machines", "mcp", "shared", "users"], packages: [] },
  identity: { folders: ["config", "shared", "users"], packages: ["cloudflare:workers", "hono", "zod"] },
  session: {
    folders: ["approval", "audit", "config", "files", "llm", "machines", "mcp", "ops", "orchestrator", "protocol", "push", "servers", "shared", "users"],
    packages: ["@modelcontextprotocol/client", "agents", "cron-schedule", "zod"],
  },
  gateway: {
    folders: ["approval", "audit", "config", "identity", "llm", "machines", "mcp", "ops", "orchestrator", "protocol", "servers", "session", "shared", "users"],
    packages: ["@cloudflare/workers-oauth-provider", "@modelcontextprotocol/client", "@modelcontextprotocol/server", "cloudflare:workers", "hono", "zod"],
  },
  http: {
    folders: [
      "audit",
      "config",
      "files",
      "gateway",
      "identity",
      "llm",
      "machines",
      "mcp",
      "ops",
      "protocol",
      "push",
      "servers",
      "session",
      "share",
      "shared",
      "users",
    ],
    packages: ["@modelcontextprotocol/client", "agents", "hono", "zod"],
  },
  index: { folders: ["config", "gateway", "http", "identity", "machines", "ops", "session", "share", "shared", "users"], packages: ["hono"] },
};

/** The bridge (one folder): its own files, the shared package, Node and these packages. */
const BRIDGE_RULE = { folders: ["shared"], packages: ["@modelcontextprotocol/sdk", "ws", "zod", "jsonc-parser"] };

function files(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );
}

const ALL = [...files("src"), ...files(join("local-bridge", "src"))];

type Target = { file: string } | { pkg: string };

/** What one import names: a file of ours (repo-relative) or an npm package (or node: builtin). */
function resolve(from: string, specifier: string): Target {
  if (specifier.startsWith(".")) {
    const target = normalize(join(dirname(from), specifier));
    return { file: target.endsWith(".ts") ? target : `${target}.ts` };
  }
  for (const [prefix, path] of Object.entries(WORKSPACE)) if (specifier.startsWith(prefix)) return { file: `${path}${specifier.slice(prefix.length)}.ts` };
  const parts = specifier.split("/");
  return { pkg: specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier) };
}

const imports = new Map<string, Target[]>(
  ALL.map((file) => [file, [...readFileSync(join(repoRoot, file), "utf8").matchAll(IMPORT)].map((m) => resolve(file, m[1] ?? m[2] ?? m[3] ?? ""))]),
);

/** The folder a file belongs to: `src/<folder>` → folder (top-level files by name), the bridge as one. */
function folderOf(file: string): string {
  if (file.startsWith(join("local-bridge", "src"))) return "local-bridge";
  const rest = relative("src", file);
  return rest.includes(sep) ? (rest.split(sep)[0] ?? rest) : rest.replace(/\.ts$/, "");
}

const fileGraph = () => new Map([...imports].map(([file, targets]) => [file, targets.flatMap((t) => ("file" in t ? [t.file] : []))]));

function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of fileGraph()) {
    const from = folderOf(file);
    const set = graph.get(from) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== from) set.add(folderOf(target));
    graph.set(from, set);
  }
  return graph;
}

/** Strongly connected groups of more than one node (Tarjan). */
function cycles(graph: Map<string, Iterable<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w !== undefined) group.push(w);
      } while (w !== undefined && w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Each folder's imports that its rule does not allow. */
function breaches(): { folder: string; imports: string[] }[] {
  const found = new Map<string, Set<string>>();
  for (const [file, targets] of imports) {
    const folder = folderOf(file);
    const rule = folder === "local-bridge" ? BRIDGE_RULE : SRC_RULES[folder];
    const bad = found.get(folder) ?? new Set<string>();
    for (const target of targets) {
      if ("pkg" in target) {
        // Node's builtins are for Node code: the bridge, and shared's mcp.json loader the bridge uses.
        const builtin = target.pkg.startsWith("node:") && folder === "local-bridge";
        if (!builtin && !rule?.packages.includes(target.pkg)) bad.add(target.pkg);
      } else {
        const to = folderOf(target.file);
        if (to !== folder && !rule?.folders.includes(to)) bad.add(`${to}/ (${relative(folder === "local-bridge" ? "local-bridge" : "src", file)})`);
      }
    }
    if (bad.size > 0) found.set(folder, bad);
  }
  return [...found].map(([folder, bad]) => ({ folder, imports: [...bad].sort() }));
}

describe("layers of src/ and local-bridge/src/", () => {
  it("states a rule for every folder of src/", () => {
    const folders = new Set(ALL.filter((f) => f.startsWith(`src${sep}`)).map(folderOf));
    expect([...folders].filter((f) => !SRC_RULES[f]).sort()).toEqual([]);
  });

  it("has no import cycles between folders or files, type-only imports included, across both programs", () => {
    expect(cycles(folderGraph())).toEqual([]);
    expect(cycles(fileGraph())).toEqual([]);
  });

  it("keeps every folder to the folders and packages its rule names", () => {
    expect(breaches()).toEqual([]);
  });

  it("the Worker depends on the bridge for nothing: no file of src/ imports local-bridge/", () => {
    expect([...folderGraph()].filter(([from, to]) => from !== "local-bridge" && to.has("local-bridge")).map(([from]) => from)).toEqual([]);
  });

  it("reaches MCP through the 2.x SDK only: nothing in src/ names the 1.x @modelcontextprotocol/sdk (it bundles Ajv)", () => {
    const sdk1 = [...imports].filter(
      ([file, targets]) => file.startsWith(`src${sep}`) && targets.some((t) => "pkg" in t && t.pkg === "@modelcontextprotocol/sdk"),
    );
    expect(sdk1.map(([file]) => file)).toEqual([]);
  });

  it("loads the MCP server SDK in one place, dynamically: its top level preloads every schema, which a chat-only isolate must not pay", () => {
    const staticValue = /(?:import|export)\s(?!type\s)[^;]*?from\s*["']@modelcontextprotocol\/server["']/gms;
    const dynamic = /(?<!typeof\s)import\(\s*["']@modelcontextprotocol\/server["']\s*\)/g;
    const found = ALL.filter((f) => f.startsWith(`src${sep}`)).flatMap((file) => {
      const text = readFileSync(join(repoRoot, file), "utf8");
      return [...[...text.matchAll(staticValue)].map(() => `${file}: static`), ...[...text.matchAll(dynamic)].map(() => `${file}: import()`)];
    });
    expect(found).toEqual([`${join("src", "gateway", "server-lib.ts")}: import()`]);
  });

  it("sees the imports it rules on (the parser is not silently blind)", () => {
    expect(imports.get(join("src", "mcp", "call.ts"))).toContainEqual({ file: join("src", "shared", "rpc.ts") });
    expect(imports.get(join("local-bridge", "src", "bridge.ts"))).toContainEqual({ file: join("src", "shared", "rpc.ts") });
    expect(imports.get(join("local-bridge", "src", "http.ts"))).toContainEqual({ pkg: "@modelcontextprotocol/sdk" });
  });
});
