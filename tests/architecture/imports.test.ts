// The layers of src/ point one way: WebSocket frame → protocol → session →
// orchestrator → llm / mcp, with shared/ below them all. Read from the import
// statements themselves, so a new import that breaks the rule fails here.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../fixtures/servers";

const src = join(repoRoot, "src");
const IMPORT = /(?:import|export)\s[^;]*?from\s*["'](\.[^"']+)["']/gs;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** file (relative to src) → the src files it imports. */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(src)) {
    const targets = [...readFileSync(file, "utf8").matchAll(IMPORT)].map((m) => {
      const target = normalize(join(dirname(file), m[1] ?? ""));
      return relative(src, target.endsWith(".ts") ? target : `${target}.ts`);
    });
    graph.set(
      relative(src, file),
      targets.filter((t) => !t.startsWith("..")),
    );
  }
  return graph;
}

const folder = (file: string) => (file.includes(sep) ? (file.split(sep)[0] ?? file) : file.replace(/\.ts$/, ""));

function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of fileGraph()) {
    const from = folder(file);
    const set = graph.get(from) ?? new Set<string>();
    for (const target of targets) if (folder(target) !== from) set.add(folder(target));
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

describe("src/ layers", () => {
  it("has no import cycles between folders or files", () => {
    expect(cycles(folderGraph())).toEqual([]);
    expect(cycles(fileGraph())).toEqual([]);
  });

  it("reaches MCP through the 2.x SDK only: nothing in src/ names the 1.x @modelcontextprotocol/sdk (it bundles Ajv)", () => {
    const sdk1 = /["']@modelcontextprotocol\/sdk(?:\/[^"']*)?["']/;
    expect(
      files(src)
        .filter((file) => sdk1.test(readFileSync(file, "utf8")))
        .map((file) => relative(src, file)),
    ).toEqual([]);
  });

  it("keeps the lower layers ignorant of the upper ones", () => {
    const graph = folderGraph();
    const below: Record<string, string[]> = {
      shared: [],
      mcp: ["shared"],
      llm: ["shared"],
      orchestrator: ["llm", "mcp", "shared"],
      protocol: ["mcp", "shared"],
      approval: ["orchestrator", "protocol", "shared"],
    };
    for (const [layer, allowed] of Object.entries(below)) {
      expect({ layer, imports: [...(graph.get(layer) ?? [])].filter((t) => !allowed.includes(t)).sort() }).toEqual({ layer, imports: [] });
    }
  });
});
