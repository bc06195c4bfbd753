// The docs stay in step with the code: every variable the Worker reads is documented in
// docs/configuration.md and nothing documented there is missing from the code; every key
// of the mcp.json schema is documented; README.md stays short; and every relative link of
// README.md and docs/*.md points at a file (and heading) that exists. Read from the
// schemas and the source themselves, so a new variable or key without docs fails here.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { AuthEnvSchema } from "../../src/config/auth";
import { SettingsSchema } from "../../src/config/settings";
import { ModelEnvSchema } from "../../src/llm/select";
import { ERROR_CODE_NAMES } from "../../src/shared/error-codes";
import { RawServerSchema, SERVER_LIST_KEYS } from "../../src/shared/mcp-config/config";
import { repoRoot } from "../fixtures/servers";

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");
const configurationDoc = read("docs/configuration.md");
const README_MAX_BYTES = 10 * 1024;

/** The lines under `## heading` (or `### heading`), up to the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = heading.indexOf(" ");
  const end = lines.findIndex((line, i) => i > start && /^#+ /.test(line) && line.indexOf(" ") <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** The first cell of every table row, header rows left out. */
function firstCells(markdown: string): string[] {
  const lines = markdown.split("\n");
  const separator = (line = "") => /^\|[\s:|-]+$/.test(line);
  return lines.filter((line, i) => line.startsWith("|") && !separator(line) && !separator(lines[i + 1])).map((row) => row.split("|")[1]?.trim() ?? "");
}

/** `NAME` tokens (environment variable names) in `text`. */
const variableNames = (text: string) => new Set([...text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] ?? ""));

/** The members of the `Env` type in src/config/env.ts: every binding and variable the Worker reads. */
function envTypeKeys(): string[] {
  const source = ts.createSourceFile("env.ts", read("src/config/env.ts"), ts.ScriptTarget.Latest, true);
  const keys: string[] = [];
  source.forEachChild((node) => {
    if (!ts.isTypeAliasDeclaration(node) || node.name.text !== "Env" || !ts.isTypeLiteralNode(node.type)) return;
    for (const member of node.type.members) if (member.name && ts.isIdentifier(member.name)) keys.push(member.name.text);
  });
  return keys;
}

function sourceFiles(dir: string, pattern: RegExp): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)));
}

/** Variables a file reads as `env.NAME` / `process.env.NAME` (or names to `portFrom`, in scripts/dev.mjs). */
function variablesRead(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    for (const match of read(file).matchAll(/\benv\.([A-Z][A-Z0-9_]+)\b|portFrom\("([A-Z][A-Z0-9_]+)"/g)) names.add(match[1] ?? match[2] ?? "");
  }
  return names;
}

type Def = {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  innerType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  entries?: Record<string, string>;
};
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** The object and enum inside optional / default / array wrappers. */
function unwrap(def: Def): Def {
  if ((def.type === "optional" || def.type === "default" || def.type === "nullable") && def.innerType) return unwrap(def.innerType._zod.def);
  if (def.type === "array" && def.element) return unwrap(def.element._zod.def);
  return def;
}

describe("docs/configuration.md: the Worker's environment", () => {
  const env = envTypeKeys();
  const documented = new Set(firstCells(section(configurationDoc, "## The Worker's environment")).flatMap((cell) => [...variableNames(cell)]));

  it("src/config/env.ts lists every variable the schemas and the code read", () => {
    expect(env.length).toBeGreaterThan(40);
    const schemaKeys = [...Object.keys(SettingsSchema.shape), ...Object.keys(AuthEnvSchema.shape), ...Object.keys(ModelEnvSchema.shape)];
    expect(schemaKeys.filter((key) => !env.includes(key))).toEqual([]);
    const read = variablesRead(sourceFiles("src", /\.ts$/).filter((file) => !file.includes("generated")));
    expect([...read].filter((key) => !env.includes(key))).toEqual([]);
  });

  it("documents every binding and variable of Env", () => {
    expect(env.filter((key) => !documented.has(key))).toEqual([]);
  });

  it("documents no variable the Worker does not read", () => {
    expect([...documented].filter((key) => !env.includes(key))).toEqual([]);
  });
});

describe("docs/configuration.md: processes on your machine", () => {
  const files = ["scripts/dev.mjs", "scripts/ensure-chromium.mjs", ...sourceFiles("local-bridge/src", /\.ts$/)];
  const read = variablesRead(files);
  const documented = new Set(firstCells(section(configurationDoc, "## Processes on your machine")).flatMap((cell) => [...variableNames(cell)]));

  it("documents every variable npm run dev, the bridge and npm test read", () => {
    expect(read.size).toBeGreaterThan(5);
    expect([...read].filter((key) => !documented.has(key))).toEqual([]);
  });

  it("documents no variable they do not read", () => {
    expect([...documented].filter((key) => !read.has(key))).toEqual([]);
  });
});

describe("docs/configuration.md: mcp.json", () => {
  const doc = section(configurationDoc, "## mcp.json");
  const fields = section(configurationDoc, "### Server fields");
  const serverKeys = Object.keys(RawServerSchema.shape);

  it("documents both top-level keys", () => {
    expect(SERVER_LIST_KEYS.filter((key) => !doc.includes(`\`${key}\``))).toEqual([]);
  });

  it("documents every server field in the fields table", () => {
    const cells = firstCells(fields);
    const rows = new Set(cells.flatMap((cell) => [...cell.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1])));
    expect(serverKeys.filter((key) => !rows.has(key))).toEqual([]);
    // And the table names no field the parser does not know.
    expect([...rows].filter((key) => key !== undefined && !serverKeys.includes(key))).toEqual([]);
  });

  it("documents every nested key and every allowed value", () => {
    const missing: string[] = [];
    for (const [key, schema] of Object.entries(RawServerSchema.shape)) {
      const def = unwrap(defOf(schema));
      if (def.type === "object")
        for (const nested of Object.keys(def.shape ?? {}))
          if (!fields.includes(`"${nested}"`) && !fields.includes(`\`${nested}\``)) missing.push(`${key}.${nested}`);
      if (def.type === "enum") for (const value of Object.values(def.entries ?? {})) if (!fields.includes(`\`${value}\``)) missing.push(`${key}: ${value}`);
    }
    expect(missing).toEqual([]);
  });
});

describe("README.md", () => {
  it(`is at most ${README_MAX_BYTES} bytes`, () => {
    expect(Buffer.byteLength(read("README.md"))).toBeLessThanOrEqual(README_MAX_BYTES);
  });
});

/** GitHub's id for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2... */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  for (const line of withoutCode(markdown).split("\n")) {
    const heading = /^#{1,6} (.+)$/.exec(line)?.[1];
    if (!heading) continue;
    const base = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

/** Markdown without fenced blocks and inline code, where a link is only text. */
const withoutCode = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");

describe("links", () => {
  const docs = readdirSync(join(repoRoot, "docs")).filter((name) => name.endsWith(".md"));
  const pages = ["README.md", ...docs.map((name) => `docs/${name}`)];

  it.each(pages)("%s links only to files and headings that exist", (page) => {
    const broken: string[] = [];
    const text = withoutCode(read(page));
    for (const match of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? "";
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = "", fragment] = target.split("#");
      const file = path === "" ? join(repoRoot, page) : resolve(dirname(join(repoRoot, page)), path);
      if (!existsSync(file)) broken.push(`${target}: no such file`);
      else if (fragment !== undefined && file.endsWith(".md") && !anchors(readFileSync(file, "utf8")).has(fragment)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it("docs/README.md links to every page of docs/, and README.md to docs/README.md", () => {
    const index = read("docs/README.md");
    expect(docs.filter((name) => name !== "README.md" && !index.includes(`](${name})`))).toEqual([]);
    expect(read("README.md")).toContain("](docs/README.md)");
  });

  it("give every error code of src/shared/error-codes.ts its row in troubleshooting.md", () => {
    const troubleshooting = read("docs/troubleshooting.md");
    expect(ERROR_CODE_NAMES.filter((code) => !troubleshooting.includes(`| \`${code}\` |`))).toEqual([]);
  });

  it("list every route of the Worker in http-api.md", () => {
    const mounts = new Map([...read("src/index.ts").matchAll(/app\.route\("([^"]*)", (\w+)\)/g)].map((m) => [m[2] ?? "", m[1] === "/" ? "" : (m[1] ?? "")]));
    const api = read("docs/http-api.md").replace(/\{[^}]+\}/g, ":param");
    const missing: string[] = [];
    for (const file of readdirSync(join(repoRoot, "src/http")).filter((f) => f.endsWith(".ts"))) {
      for (const m of read(`src/http/${file}`).matchAll(/^(\w+)\.(get|post|put|patch|delete)\("([^"]*)"/gm)) {
        // session-catalog.ts's routes are mounted with the sessions' (sessions.ts).
        const prefix = mounts.get(m[1] ?? "") ?? (m[1] === "sessionCatalog" ? "/sessions" : undefined);
        if (prefix === undefined) continue;
        const route = `${(m[2] ?? "").toUpperCase()} ${`${prefix}${m[3] === "/" ? "" : m[3]}`.replace(/:\w+/g, ":param") || "/"}`;
        if (!api.includes(route)) missing.push(route);
      }
    }
    expect(missing).toEqual([]);
  });
});
