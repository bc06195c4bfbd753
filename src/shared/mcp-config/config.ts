// Loader of mcp.json: accepts VS Code's `{"servers"}` and Claude Desktop / Cline's
// `{"mcpServers"}` shapes, validates them with zod, expands `${VAR}` / `${env:VAR}`,
// checks names and dependencies, and reports every problem at once as a ConfigError
// located by file:line:column and JSON path. Runtime-neutral (workerd and Node):
// the caller reads the file and passes the environment in.
import { z } from "zod";
import { JsonSource, objectEntries, nodeValue, type JSONPath } from "./config-source";
import { findDependencyCycles } from "./dependency-graph";
import { loadOAuthConfig, RawOAuthSchema } from "./oauth-config";
import { ConfigError, type ConfigIssue } from "../errors";
import { isFileUri, isHttpUrl } from "./url-kinds";
import type { McpConfig, RootConfig, ServerConfig } from "./server-config";

export type { McpConfig, OAuthClientConfig, RemoteServerConfig, RootConfig, ServerConfig, StdioServerConfig } from "./server-config";

export interface ParseOptions {
  /** Shown in issues; default "mcp.json". Never an absolute path: messages may reach a browser. */
  fileName?: string;
  env: Readonly<Record<string, string | undefined>>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
// setTimeout fires at once for delays above 2^31-1 ms, so a larger timeout would mean none.
const MAX_TIMEOUT_SECONDS = Math.floor(2_147_483_647 / 1000);
// Names form qualified tool names `{server}.{tool}` and URL paths `/servers/{name}/mcp`.
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const VARIABLE = /\$\{([^}]*)\}/g;
const MAX_ROOTS = 64;

const str = z.string({ error: "expected string" });
const stringArray = z.array(str, { error: "expected array of strings" });
const stringMap = z.record(z.string(), str, { error: "expected object with string values" });
const positiveInt = z.int({ error: "expected a positive integer" }).positive({ error: "expected a positive integer" });

/** The keys that may hold the servers: VS Code's and Claude Desktop / Cline's. */
export const SERVER_LIST_KEYS = ["servers", "mcpServers"] as const;

/** One server entry as written (docs/configuration.md lists every key). Unknown keys are dropped: other tools add their own. */
export const RawServerSchema = z.object(
  {
    type: z.enum(["stdio", "http", "sse", "streamable-http", "streamableHttp"], { error: 'expected "stdio", "http" or "sse"' }).optional(),
    command: str.min(1, { error: "expected a non-empty string" }).optional(),
    args: stringArray.optional(),
    env: stringMap.optional(),
    cwd: str.optional(),
    url: str.optional(),
    headers: stringMap.optional(),
    disabled: z.boolean({ error: "expected true or false" }).optional(),
    timeout: z
      .number({ error: "expected a number of seconds" })
      .positive({ error: "expected a positive number of seconds" })
      .max(MAX_TIMEOUT_SECONDS, { error: `expected at most ${MAX_TIMEOUT_SECONDS} seconds` })
      .optional(),
    alwaysAllow: stringArray.optional(),
    dependencies: stringArray.optional(),
    includeTools: stringArray.optional(),
    excludeTools: stringArray.optional(),
    limits: z.object({ memoryMb: positiveInt.optional(), cpuSeconds: positiveInt.optional() }, { error: "expected object" }).optional(),
    roots: z
      .array(z.object({ uri: str, name: str.optional() }, { error: "expected object" }), { error: "expected array of roots" })
      .max(MAX_ROOTS, { error: `expected at most ${MAX_ROOTS} roots` })
      .optional(),
    users: z.array(str.min(1, { error: "expected a non-empty string" }), { error: "expected array of user names (emails or token names)" }).optional(),
    isolation: z.enum(["shared", "user"], { error: 'expected "shared" or "user"' }).optional(),
    gateway: z.boolean({ error: "expected true or false" }).optional(),
    oauth: RawOAuthSchema.optional(),
  },
  { error: "expected object" },
);
type RawServer = z.infer<typeof RawServerSchema>;

/** Parses and validates mcp.json text. Throws ConfigError listing every issue found. */
export function parseMcpConfig(text: string, options: ParseOptions): McpConfig {
  const source = JsonSource.parse(text, options.fileName ?? "mcp.json");
  const shape = 'a "servers" (VS Code) or "mcpServers" (Claude Desktop) object';
  if (source.root.type !== "object") throw new ConfigError([source.issue([], `expected an object with ${shape}`)]);

  const issues: ConfigIssue[] = [];
  const shapes = objectEntries(source.root).filter(({ key }) => (SERVER_LIST_KEYS as readonly string[]).includes(key));
  const chosen = shapes[0];
  if (!chosen) throw new ConfigError([source.issue([], `expected ${shape}`)]);
  const second = shapes[1];
  if (second) issues.push(source.issue([second.key], 'use either "servers" or "mcpServers", not both', "key"));
  const shapeKey = chosen.key;
  issues.push(...source.duplicateKeyIssues((path) => (path.length === 1 && path[0] === shapeKey ? "server name" : "key")));
  if (chosen.valueNode.type !== "object") {
    issues.push(source.issue([shapeKey], "expected object mapping server names to their configuration"));
    throw new ConfigError(issues);
  }

  const loader = new Loader(source, options.env, issues);
  const entries = objectEntries(chosen.valueNode);
  const servers: ServerConfig[] = [];
  const byLowerName = new Map<string, { name: string; line: number }>();
  for (const { key: name, keyNode, valueNode } of entries) {
    const path = [shapeKey, name];
    if (!SERVER_NAME.test(name)) {
      const rule = 'use 1-64 letters, digits, "_" or "-", starting with a letter or digit';
      issues.push(source.issue(path, `invalid server name ${JSON.stringify(name)}: ${rule}`, "key"));
    }
    const sameButCase = byLowerName.get(name.toLowerCase());
    if (sameButCase) {
      const first = `"${sameButCase.name}" on line ${sameButCase.line}`;
      issues.push(source.issue(path, `duplicate server name "${name}" (differs only by case from ${first})`, "key"));
    } else {
      byLowerName.set(name.toLowerCase(), { name, line: source.positionAt(keyNode.offset).line });
    }
    const parsed = RawServerSchema.safeParse(nodeValue(valueNode));
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const rest = issue.path.filter((segment): segment is string | number => typeof segment !== "symbol");
        issues.push(source.issue([...path, ...rest], issue.message));
      }
      continue;
    }
    const server = loader.server(name, parsed.data, path);
    if (server) servers.push(server);
  }

  checkDependencies(source, shapeKey, new Set(entries.map(({ key }) => key)), servers, issues);
  if (issues.length > 0) {
    throw new ConfigError(issues.sort((a, b) => a.line - b.line || a.column - b.column));
  }
  return { servers };
}

/** Turns one validated raw entry into a ServerConfig, expanding variables. */
class Loader {
  constructor(
    private readonly source: JsonSource,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly issues: ConfigIssue[],
  ) {}

  server(name: string, raw: RawServer, path: JSONPath): ServerConfig | undefined {
    const common = {
      name,
      disabled: raw.disabled ?? false,
      timeoutMs: raw.timeout === undefined ? DEFAULT_TIMEOUT_MS : Math.ceil(raw.timeout * 1000),
      alwaysAllow: raw.alwaysAllow ?? [],
      dependencies: raw.dependencies ?? [],
      ...(raw.includeTools ? { includeTools: raw.includeTools } : {}),
      excludeTools: raw.excludeTools ?? [],
      ...(raw.roots ? { roots: this.roots(raw.roots, [...path, "roots"], !(raw.disabled ?? false)) } : {}),
      ...(raw.users ? { users: raw.users } : {}),
      ...(raw.gateway === false ? { gateway: false } : {}),
    };
    // A disabled server starts nothing, so a variable it needs may legitimately be unset
    // (the usual reason to disable it); report nothing and keep the reference as written.
    const expand = (at: JSONPath, value: string) => this.expand(at, value, !common.disabled);
    const transport = this.transport(raw, path);
    if (transport === "stdio") {
      if (raw.command === undefined) return undefined;
      return {
        ...common,
        transport,
        command: expand([...path, "command"], raw.command).value,
        args: (raw.args ?? []).map((arg, i) => expand([...path, "args", i], arg).value),
        env: this.expandMap([...path, "env"], raw.env, expand),
        ...(raw.cwd === undefined ? {} : { cwd: expand([...path, "cwd"], raw.cwd).value }),
        ...(raw.limits ? { limits: raw.limits } : {}),
        ...(raw.isolation === "user" ? { isolation: "user" as const } : {}),
      };
    }
    if (transport === undefined || raw.url === undefined) return undefined;
    const url = expand([...path, "url"], raw.url);
    // An unresolved reference is already reported (or the server is disabled): no second issue.
    if (url.complete && !isHttpUrl(url.value)) this.issues.push(this.source.issue([...path, "url"], "expected an http(s) URL"));
    const oauth =
      raw.oauth && loadOAuthConfig(raw.oauth, [...path, "oauth"], { expand, issue: (at, message) => this.issues.push(this.source.issue(at, message)) });
    return { ...common, transport, url: url.value, headers: this.expandMap([...path, "headers"], raw.headers, expand), ...(oauth ? { oauth } : {}) };
  }

  /** Roots are `file://` URIs of absolute paths (the MCP spec: roots are file URIs for now); `${VAR}` expands in them. */
  private roots(roots: NonNullable<RawServer["roots"]>, path: JSONPath, report: boolean): RootConfig[] {
    return roots.map((root, i) => {
      const uri = this.expand([...path, i, "uri"], root.uri, report);
      if (uri.complete && !isFileUri(uri.value))
        this.issues.push(this.source.issue([...path, i, "uri"], "expected a file:// URI of an absolute path (file:///home/me/project)"));
      return { uri: uri.value, ...(root.name === undefined ? {} : { name: root.name }) };
    });
  }

  private transport(raw: RawServer, path: JSONPath): ServerConfig["transport"] | undefined {
    const declared = raw.type === "streamable-http" || raw.type === "streamableHttp" ? "http" : raw.type;
    const missing = (field: string, kind: string) => this.issues.push(this.source.issue(path, `required field "${field}" is missing for ${kind} server`));
    if (declared === "stdio") {
      if (raw.command === undefined) missing("command", "a stdio");
    } else if (declared) {
      if (raw.url === undefined) missing("url", `an ${declared}`);
    } else if (raw.command !== undefined && raw.url !== undefined) {
      this.issues.push(this.source.issue(path, 'both "command" and "url" are set: add "type" to choose the transport'));
      return undefined;
    } else if (raw.command === undefined && raw.url === undefined) {
      this.issues.push(this.source.issue(path, 'required field "command" (stdio) or "url" (http) is missing'));
      return undefined;
    }
    return declared ?? (raw.command !== undefined ? "stdio" : "http");
  }

  private expandMap(
    path: JSONPath,
    map: Record<string, string> | undefined,
    expand: (at: JSONPath, value: string) => { value: string },
  ): Record<string, string> {
    // fromEntries defines own properties, so even a "__proto__" key stays plain data.
    return Object.fromEntries(Object.entries(map ?? {}).map(([key, value]) => [key, expand([...path, key], value).value]));
  }

  /** Expands `${VAR}` and `${env:VAR}` in one pass: expanded values are never expanded again. */
  private expand(path: JSONPath, value: string, report: boolean): { value: string; complete: boolean } {
    let complete = true;
    const problem = (message: string) => {
      complete = false;
      if (report) this.issues.push(this.source.issue(path, message));
    };
    const expanded = value.replace(VARIABLE, (reference: string, inner: string) => {
      if (inner.startsWith("input:")) {
        problem(`input variables are not supported (${reference}): use \${env:NAME}`);
        return reference;
      }
      const name = inner.startsWith("env:") ? inner.slice("env:".length) : inner;
      if (!ENV_NAME.test(name)) {
        problem(`unsupported variable ${reference}: only \${NAME} and \${env:NAME} are expanded`);
        return reference;
      }
      // hasOwn: a name like "constructor" must not resolve through the prototype.
      const found = Object.hasOwn(this.env, name) ? this.env[name] : undefined;
      if (typeof found !== "string") {
        problem(`environment variable ${name} is not set`);
        return reference;
      }
      return found;
    });
    return { value: expanded, complete };
  }
}

function checkDependencies(source: JsonSource, shapeKey: string, names: ReadonlySet<string>, servers: readonly ServerConfig[], issues: ConfigIssue[]): void {
  const byName = new Map(servers.map((server) => [server.name, server]));
  const at = (server: string, index: number): JSONPath => [shapeKey, server, "dependencies", index];
  for (const server of servers) {
    server.dependencies.forEach((dep, index) => {
      if (dep === server.name) {
        issues.push(source.issue(at(server.name, index), `server "${dep}" cannot depend on itself`));
      } else if (!names.has(dep)) {
        const similar = [...names].find((name) => name.toLowerCase() === dep.toLowerCase());
        const hint = similar ? ` (did you mean "${similar}"?)` : "";
        issues.push(source.issue(at(server.name, index), `unknown server "${dep}"${hint}`));
      } else if (!server.disabled && byName.get(dep)?.disabled) {
        issues.push(source.issue(at(server.name, index), `depends on disabled server "${dep}"`));
      }
    });
  }
  // Self-dependencies are reported above; leave them out so they are not also a cycle.
  const graph = servers.map(({ name, dependencies }) => ({ name, dependencies: dependencies.filter((d) => d !== name) }));
  for (const cycle of findDependencyCycles(graph)) {
    const [first, next] = cycle;
    const owner = first === undefined ? undefined : byName.get(first);
    if (!owner || next === undefined) continue;
    issues.push(source.issue(at(owner.name, owner.dependencies.indexOf(next)), `dependency cycle: ${cycle.join(" -> ")}`));
  }
}
