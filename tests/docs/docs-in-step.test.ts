// The docs stay true to the code where a drift would mislead: every variable the Worker
// reads is documented (and nothing documented is gone), every key of an mcp.json server
// entry is documented, every error code has its row, every route is listed, links resolve,
// and the README stays a README.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODE_NAMES } from "../../src/shared/error-codes";
import { RawServerSchema } from "../../src/shared/mcp-config/config";
import { repoRoot } from "../fixtures/servers";

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");
const docs = readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md"));
const configuration = read("docs/configuration.md");

/** The variables of `Env` (src/config/env.ts), without the bindings wrangler.toml sets. */
function envVariables(): string[] {
  const body = /export type Env = \{([\s\S]*?)\n\};/.exec(read("src/config/env.ts"))?.[1] ?? "";
  return [...body.matchAll(/^\s+([A-Z][A-Z0-9_]*)\??: string;/gm)].map((m) => m[1] ?? "");
}

/** The variables in the tables of configuration.md's "Environment" section. */
function documentedVariables(): string[] {
  const section = /## Environment\n([\s\S]*?)\n## /.exec(configuration)?.[1] ?? "";
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1] ?? "");
}

describe("docs", () => {
  it("document every environment variable the Worker reads, and none it does not", () => {
    const inCode = envVariables();
    const documented = documentedVariables();
    expect(inCode.length).toBeGreaterThan(30);
    expect(inCode.filter((v) => !documented.includes(v))).toEqual([]);
    expect(documented.filter((v) => !inCode.includes(v))).toEqual([]);
  });

  it("document every key of an mcp.json server entry, and the file's two shapes", () => {
    const keys = Object.keys(RawServerSchema.shape);
    expect(keys).toContain("isolation");
    expect(keys.filter((key) => !configuration.includes(`\`${key}\``))).toEqual([]);
    for (const shape of ["servers", "mcpServers"]) expect(configuration).toContain(`"${shape}"`);
  });

  it("give every error code its row in troubleshooting.md", () => {
    const troubleshooting = read("docs/troubleshooting.md");
    expect(ERROR_CODE_NAMES.filter((code) => !troubleshooting.includes(`| \`${code}\` |`))).toEqual([]);
  });

  it("list every route of the Worker in http-api.md", () => {
    const index = read("src/index.ts");
    const mounts = new Map([...index.matchAll(/app\.route\("([^"]*)", (\w+)\)/g)].map((m) => [m[2] ?? "", m[1] === "/" ? "" : (m[1] ?? "")]));
    const api = read("docs/http-api.md").replace(/\{[^}]+\}/g, ":param");
    const missing: string[] = [];
    for (const file of readdirSync(join(repoRoot, "src/http")).filter((f) => f.endsWith(".ts"))) {
      for (const m of read(`src/http/${file}`).matchAll(/^(\w+)\.(get|post|put|delete)\("([^"]*)"/gm)) {
        const prefix = mounts.get(m[1] ?? "") ?? (m[1] === "sessionCatalog" ? "/sessions" : undefined);
        if (prefix === undefined) continue;
        const path = `${prefix}${m[3] === "/" ? "" : m[3]}`.replace(/:\w+/g, ":param") || "/";
        if (!api.includes(`${(m[2] ?? "").toUpperCase()} ${path}`)) missing.push(`${(m[2] ?? "").toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("link only to files that exist", () => {
    const broken: string[] = [];
    for (const page of ["README.md", ...docs.map((d) => `docs/${d}`)]) {
      for (const m of read(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1] ?? "";
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(repoRoot, dirname(page), target))) broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("keep the README short: what it is, the two commands, a map of the docs", () => {
    const readme = read("README.md");
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(10 * 1024);
    expect(readme).toContain("npm install\nnpm run dev");
    expect(readme).toContain("npm test");
    expect(docs.filter((d) => d !== "README.md" && !readme.includes(`docs/${d}`))).toEqual([]);
  });
});
