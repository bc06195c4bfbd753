// Remote MCP servers a user adds at runtime, on top of the deploy-time mcp.json.
// An entry is written in mcp.json's own shape and checked by the same parser (so
// the errors read the same, `url: expected string`), with no environment: a user
// entry can never expand `${VAR}` into one of the Worker's secrets. Header values
// are write-only: they are shown masked and a masked value sent back keeps the
// stored one, only while the URL stays the one they were saved with. Stdio
// servers still come only from the bridge's mcp.json.
import { z } from "zod";
import type { FieldIssue } from "../shared/errors";
import { ConfigError } from "../shared/errors";
import { parseMcpConfig, type RemoteServerConfig } from "../shared/mcp-config/config";

export const MASK = "••••••";
const MAX_HEADERS = 20;
const MAX_HEADER_BYTES = 8 * 1024;
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** What the API accepts for a server (mcp.json's remote entry, plus its name). */
export const UserServerInputSchema = z.object({
  name: z.string().regex(SERVER_NAME, 'use 1-64 letters, digits, "_" or "-", starting with a letter or digit'),
  url: z.string(),
  type: z.enum(["http", "sse"]).default("http"),
  headers: z.record(z.string(), z.string()).default({}),
  timeout: z.number().optional(),
  alwaysAllow: z.array(z.string()).default([]),
  includeTools: z.array(z.string()).optional(),
  excludeTools: z.array(z.string()).default([]),
  disabled: z.boolean().default(false),
  /** MCP roots offered to the server (file:// URIs); absent: roots are not offered. */
  roots: z.array(z.object({ uri: z.string(), name: z.string().optional() })).optional(),
  /** A pre-registered OAuth client; its secret is write-only like header values. */
  oauth: z.object({ clientId: z.string().min(1), clientSecret: z.string().optional(), scopes: z.array(z.string()).optional() }).optional(),
});
export type UserServerInput = z.infer<typeof UserServerInputSchema>;

/** As stored in the user's account: the input with real header values. */
export type StoredUserServer = UserServerInput;

export type Validated = { ok: true; server: StoredUserServer; config: RemoteServerConfig } | { ok: false; issues: FieldIssue[]; code?: "secret_required" };

/** What a masked value gets when the URL changed: the stored secrets were given for the old one. */
export const SECRET_BOUND = "saved header values and the client secret go only to the URL they were saved with: enter them again to change the URL";

/** A header's path as mcp.json errors write it: `headers.X` or `headers["X-Key"]`. */
const headerPath = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `headers.${name}` : `headers[${JSON.stringify(name)}]`);

function headerIssues(headers: Record<string, string>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) issues.push({ path: "headers", message: `at most ${MAX_HEADERS} headers` });
  const bytes = names.reduce((n, name) => n + new TextEncoder().encode(name + (headers[name] ?? "")).length, 0);
  if (bytes > MAX_HEADER_BYTES) issues.push({ path: "headers", message: `headers are ${bytes} bytes; at most ${MAX_HEADER_BYTES}` });
  for (const name of names) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) issues.push({ path: headerPath(name), message: "not a valid header name" });
    else if (/^(host|content-length|transfer-encoding|connection|mcp-session-id|mcp-protocol-version)$/i.test(name))
      issues.push({ path: headerPath(name), message: "set by edgehost itself" });
  }
  return issues;
}

/** Checks one entry with mcp.json's parser; `previous` supplies the values of masked headers. */
export function validateUserServer(input: UserServerInput, previous?: StoredUserServer): Validated {
  // A masked value keeps a secret only at the address it was saved for: otherwise whoever has a
  // moment in the owner's session could point a saved token at their own server and read it there.
  if (previous && input.url !== previous.url) {
    const masked = [
      ...Object.entries(input.headers)
        .filter(([, value]) => value === MASK)
        .map(([name]) => headerPath(name)),
      ...(input.oauth?.clientSecret === MASK ? ["oauth.clientSecret"] : []),
    ];
    if (masked.length > 0)
      return {
        ok: false,
        code: "secret_required",
        issues: [...masked.map((path) => ({ path, message: SECRET_BOUND })), { path: "url", message: "changed: saved secrets do not follow it" }],
      };
  }
  const headers = Object.fromEntries(Object.entries(input.headers).map(([name, value]) => [name, value === MASK ? (previous?.headers[name] ?? MASK) : value]));
  const oauth = input.oauth && { ...input.oauth, ...(input.oauth.clientSecret === MASK ? { clientSecret: previous?.oauth?.clientSecret ?? MASK } : {}) };
  const server: StoredUserServer = { ...input, headers, ...(oauth ? { oauth } : {}) };
  const issues = headerIssues(headers);
  // The mask keeps a stored value; under a header that has none it would send the mask itself.
  for (const [name, value] of Object.entries(headers))
    if (value === MASK) issues.push({ path: headerPath(name), message: "no stored value to keep: enter the value" });
  if (oauth?.clientSecret === MASK) issues.push({ path: "oauth.clientSecret", message: "no stored value to keep: enter the value" });
  let url: URL | undefined;
  try {
    url = new URL(server.url);
  } catch {
    issues.push({ path: "url", message: "expected an http(s) URL" });
  }
  if (url && url.protocol !== "https:" && url.protocol !== "http:") issues.push({ path: "url", message: "expected an http(s) URL" });
  if (issues.length > 0) return { ok: false, issues };
  const { name, ...entry } = server;
  try {
    const parsed = parseMcpConfig(JSON.stringify({ servers: { [name]: entry } }), { fileName: "server", env: {} });
    const config = parsed.servers[0];
    if (!config || config.transport === "stdio") return { ok: false, issues: [{ path: "type", message: "runtime servers are remote (http or sse)" }] };
    return { ok: true, server, config };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // `servers.<name>.headers.X` → `headers.X`: the field as the form knows it.
    const prefix = `servers.${name}`;
    return {
      ok: false,
      issues: error.issues.map((i) => ({
        path: i.path === prefix ? "" : i.path.startsWith(`${prefix}.`) ? i.path.slice(prefix.length + 1) : i.path,
        message: i.message,
      })),
    };
  }
}

/** The entry as the API shows it: header values masked. */
export function maskedServer(server: StoredUserServer): StoredUserServer {
  const oauth = server.oauth && { ...server.oauth, ...(server.oauth.clientSecret === undefined ? {} : { clientSecret: MASK }) };
  return { ...server, headers: Object.fromEntries(Object.keys(server.headers).map((name) => [name, MASK])), ...(oauth ? { oauth } : {}) };
}
