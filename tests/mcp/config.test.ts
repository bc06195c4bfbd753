// mcp.json loading: both file shapes, defaults, variable expansion, and the exact
// `file:line:column path: message` lines a user sees for each kind of mistake.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { routeStdioThroughBridge } from "../../src/mcp/bridge-routing";
import { type McpConfig, parseMcpConfig } from "../../src/shared/mcp-config/config";
import { loadMcpConfigFile } from "../../src/shared/mcp-config/config-file";
import { DependencyCycleError, dependencyOrder, findDependencyCycles } from "../../src/shared/mcp-config/dependency-graph";
import { ConfigError } from "../../src/shared/errors";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/config/${name}`, import.meta.url));
const readFixture = (name: string) => readFileSync(fixture(name), "utf8");
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

const common = { disabled: false, timeoutMs: 60_000, alwaysAllow: [], dependencies: [], excludeTools: [] };

/** The formatted issue lines of the ConfigError thrown by `run`. */
function configErrorLines(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split("\n");
  }
  throw new Error("expected a ConfigError");
}

describe("parseMcpConfig: good files", () => {
  it("reads VS Code's servers shape with comments, type aliases, ignored inputs and unknown keys", () => {
    const env = { WORKSPACE: "/w", USER_NAME: "me", SEARCH_TOKEN: "t0k" };
    expect(parseMcpConfig(readFixture("vscode.json"), { env })).toEqual<McpConfig>({
      servers: [
        {
          ...common,
          name: "filesystem",
          timeoutMs: 2500,
          alwaysAllow: ["read_text_file"],
          includeTools: ["read_text_file", "list_directory"],
          transport: "stdio",
          command: "node",
          args: ["server.js", "/w"],
          env: {},
          cwd: "/srv/me",
          limits: { memoryMb: 512, cpuSeconds: 30 },
        },
        {
          ...common,
          name: "search",
          dependencies: ["filesystem"],
          excludeTools: ["delete"],
          transport: "http",
          url: "https://search.example.com/mcp",
          headers: { Authorization: "Bearer t0k" },
        },
        { ...common, name: "legacy", disabled: true, transport: "sse", url: "http://127.0.0.1:9000/sse", headers: {} },
        { ...common, name: "streaming", transport: "http", url: "http://localhost:3001/mcp", headers: {} },
        { ...common, name: "camel", transport: "http", url: "http://localhost:3002/mcp", headers: {} },
      ],
    });
  });

  it("reads Claude Desktop's mcpServers shape, inferring stdio from command and http from url", () => {
    const env = { BRAVE_API_KEY: "bk", HELLO: "Hi", WHO: "you", EMPTY: "" };
    expect(parseMcpConfig(readFixture("claude-desktop.json"), { env })).toEqual<McpConfig>({
      servers: [
        {
          ...common,
          name: "brave-search",
          transport: "stdio",
          command: "npx",
          args: ["-y", "@brave/brave-search-mcp-server"],
          // Several references in one string; a set-but-empty variable expands to "".
          env: { BRAVE_API_KEY: "bk", GREETING: "Hi, you! done", PLAIN: "no variables here" },
        },
        { ...common, name: "remote", transport: "http", url: "https://mcp.example.com/mcp", headers: {} },
      ],
    });
  });

  it("does not expand values a second time, so a variable cannot inject another reference", () => {
    const config = parseMcpConfig('{"servers": {"a": {"command": "${A}"}}}', { env: { A: "${B}" } });
    expect(config.servers[0]).toMatchObject({ command: "${B}" });
  });

  it("leaves unset variables of a disabled server unexpanded instead of failing", () => {
    const text = '{"servers": {"later": {"command": "x", "disabled": true, "env": {"K": "${NOPE}"}}}}';
    expect(parseMcpConfig(text, { env: {} }).servers[0]).toMatchObject({ disabled: true, env: { K: "${NOPE}" } });
  });

  it("does not resolve variable names through the prototype of the env object", () => {
    const lines = configErrorLines(() => parseMcpConfig('{"servers": {"a": {"command": "${constructor}"}}}', { env: {} }));
    expect(lines).toEqual(["mcp.json:1:31 servers.a.command: environment variable constructor is not set"]);
  });

  it("reads a remote server's pre-registered OAuth client, expanding its secret from the environment", () => {
    const text =
      '{ "servers": { "tracker": { "url": "https://mcp.example.com/mcp", "oauth": { "clientId": "edgehost", "clientSecret": "${TRACKER_SECRET}", "scopes": ["read"] } } } }';
    expect(parseMcpConfig(text, { env: { TRACKER_SECRET: "s3cret" } }).servers[0]).toEqual({
      ...common,
      name: "tracker",
      transport: "http",
      url: "https://mcp.example.com/mcp",
      headers: {},
      oauth: { clientId: "edgehost", clientSecret: "s3cret", scopes: ["read"] },
    });
    expect(
      configErrorLines(() => parseMcpConfig('{ "servers": { "t": { "url": "https://x.example/mcp", "oauth": { "clientSecret": "s" } } } }', { env: {} })),
    ).toEqual([expect.stringMatching(/^mcp\.json:1:\d+ servers\.t\.oauth\.clientId: /)]);
  });

  it('keeps a server from /mcp\'s apps with `"gateway": false` only, and refuses anything but a boolean', () => {
    const parsed = parseMcpConfig(
      '{ "servers": { "a": { "url": "https://a.example/mcp", "gateway": false }, "b": { "url": "https://b.example/mcp", "gateway": true } } }',
      { env: {} },
    );
    expect(parsed.servers.map((s) => [s.name, s.gateway])).toEqual([
      ["a", false],
      ["b", undefined],
    ]);
    expect(configErrorLines(() => parseMcpConfig('{ "servers": { "a": { "url": "https://a.example/mcp", "gateway": "no" } } }', { env: {} }))).toEqual([
      expect.stringMatching(/^mcp\.json:1:\d+ servers\.a\.gateway: expected true or false/),
    ]);
  });

  it("accepts an empty servers object", () => {
    expect(parseMcpConfig('{"servers": {}}', { env: {} })).toEqual({ servers: [] });
  });

  it("loads the repository's own mcp.json: the filesystem server on ./workspace, resolved from node_modules", async () => {
    const config = await loadMcpConfigFile(`${repoRoot}mcp.json`, {});
    expect(config.servers).toEqual([
      {
        ...common,
        name: "filesystem",
        transport: "stdio",
        command: "node",
        args: ["node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "./workspace"],
        env: {},
      },
    ]);
    // Resolved from node_modules: `npx -y` would hang without a registry.
    const [script] = config.servers[0]?.transport === "stdio" ? config.servers[0].args : [];
    expect(existsSync(`${repoRoot}${script}`)).toBe(true);
  });
});

interface BadCase {
  name: string;
  file?: string;
  text?: string;
  env?: Record<string, string>;
  expected: string[];
}

const badCases: BadCase[] = [
  { name: "syntax error (missing comma)", file: "syntax-error.json", expected: ['mcp.json:5:7: syntax error: expected ","'] },
  {
    name: "trailing garbage after the document",
    file: "trailing-garbage.json",
    expected: ["mcp.json:4:1: syntax error: unexpected content after the end of the JSON document"],
  },
  {
    name: "syntax error located on a CRLF line after a BOM",
    text: '\uFEFF{\r\n  "servers": {\r\n    "a": { "command": \'x\' }\r\n  }\r\n}\r\n',
    expected: ["mcp.json:3:23: syntax error: invalid symbol"],
  },
  { name: "empty file", text: "  \n", expected: ["mcp.json:1:1: the file is empty"] },
  {
    name: "document that is not an object",
    text: "[]",
    expected: ['mcp.json:1:1: expected an object with a "servers" (VS Code) or "mcpServers" (Claude Desktop) object'],
  },
  {
    name: "neither servers nor mcpServers",
    file: "no-shape.json",
    expected: ['mcp.json:1:1: expected a "servers" (VS Code) or "mcpServers" (Claude Desktop) object'],
  },
  {
    name: "both servers and mcpServers",
    file: "both-shapes.json",
    expected: ['mcp.json:3:3 mcpServers: use either "servers" or "mcpServers", not both'],
  },
  {
    name: "servers that is not an object",
    text: '{"servers": []}',
    expected: ["mcp.json:1:13 servers: expected object mapping server names to their configuration"],
  },
  {
    name: "duplicate server name (JSON.parse would keep the last)",
    file: "duplicate-server.json",
    expected: ['mcp.json:5:5 servers.fs: duplicate server name "fs" (first defined on line 3)'],
  },
  {
    name: "duplicate keys nested in env and inside an array",
    file: "duplicate-nested.json",
    expected: [
      'mcp.json:7:9 servers.fs.env.ROOT: duplicate key "ROOT" (first defined on line 6)',
      "mcp.json:9:16 servers.fs.args[0]: expected string",
      'mcp.json:9:26 servers.fs.args[0].x: duplicate key "x" (first defined on line 9)',
    ],
  },
  {
    name: "server names that differ only by case",
    file: "case-duplicate.json",
    expected: ['mcp.json:4:5 servers.github: duplicate server name "github" (differs only by case from "GitHub" on line 3)'],
  },
  {
    name: "2-cycle",
    file: "cycle-2.json",
    expected: ["mcp.json:3:45 servers.a.dependencies[0]: dependency cycle: a -> b -> a"],
  },
  {
    name: "3-cycle",
    file: "cycle-3.json",
    expected: ["mcp.json:3:45 servers.a.dependencies[0]: dependency cycle: a -> b -> c -> a"],
  },
  {
    name: "unknown, self and disabled dependencies",
    file: "bad-dependencies.json",
    expected: [
      'mcp.json:4:49 servers.api.dependencies[0]: depends on disabled server "db"',
      'mcp.json:4:55 servers.api.dependencies[1]: unknown server "cache"',
      'mcp.json:4:64 servers.api.dependencies[2]: unknown server "API" (did you mean "api"?)',
      'mcp.json:4:71 servers.api.dependencies[3]: server "api" cannot depend on itself',
      'mcp.json:6:50 servers.worker.dependencies[0]: unknown server "cache2" (did you mean "Cache2"?)',
    ],
  },
  {
    name: "bad types at several depths",
    file: "bad-types.json",
    expected: [
      "mcp.json:7:9 servers.fs.args[1]: expected string",
      "mcp.json:9:24 servers.fs.env.PORT: expected string",
      "mcp.json:10:18 servers.fs.timeout: expected a number of seconds",
      "mcp.json:11:19 servers.fs.disabled: expected true or false",
      "mcp.json:12:22 servers.fs.alwaysAllow: expected array of strings",
      "mcp.json:13:31 servers.fs.limits.memoryMb: expected a positive integer",
      "mcp.json:13:48 servers.fs.limits.cpuSeconds: expected a positive integer",
      "mcp.json:17:18 servers.web.headers: expected object with string values",
      "mcp.json:18:18 servers.web.timeout: expected a positive number of seconds",
      "mcp.json:19:24 servers.web.includeTools[0]: expected string",
      "mcp.json:21:16 servers.nothing: expected object",
      'mcp.json:22:14 servers.empty: required field "command" (stdio) or "url" (http) is missing',
      "mcp.json:23:27 servers.blank.command: expected a non-empty string",
      'mcp.json:24:23 servers.typo.type: expected "stdio", "http" or "sse"',
    ],
  },
  {
    name: "bad urls and transports that lack their required field",
    file: "bad-transport.json",
    expected: [
      "mcp.json:3:21 servers.ftp.url: expected an http(s) URL",
      "mcp.json:4:42 servers.relative.url: expected an http(s) URL",
      'mcp.json:5:12 servers.sse: required field "url" is missing for an sse server',
      'mcp.json:6:14 servers.stdio: required field "command" is missing for a stdio server',
      'mcp.json:7:13 servers.both: both "command" and "url" are set: add "type" to choose the transport',
    ],
  },
  {
    name: "bad server names",
    file: "bad-names.json",
    expected: ['"my server"', '"fs.tools"', '"-dash"', '"this-name-is-far-too-long-for-a-qualified-tool-name-prefix-0123456789"'].map(
      (name, i) =>
        `mcp.json:${i + 3}:5 mcpServers[${name}]: invalid server name ${name}: use 1-64 letters, digits, "_" or "-", starting with a letter or digit`,
    ),
  },
  {
    name: "missing, input and unsupported variables",
    file: "variables.json",
    env: { REGION: "eu", HOST: "secret host" },
    expected: [
      "mcp.json:5:16 servers.brave.args[0]: environment variable BRAVE_API_KEY is not set",
      "mcp.json:6:33 servers.brave.env.BRAVE_API_KEY: environment variable BRAVE_API_KEY is not set",
      "mcp.json:6:62 servers.brave.env.TOKEN: input variables are not supported (${input:token}): use ${env:NAME}",
      "mcp.json:7:14 servers.brave.cwd: environment variable HOME_DIR is not set",
      "mcp.json:7:14 servers.brave.cwd: environment variable PROJECT is not set",
      // The expanded value is invalid; the message must not repeat it (it may be a secret).
      "mcp.json:10:14 servers.remote.url: expected an http(s) URL",
      'mcp.json:11:33 servers.remote.headers["X-Api-Key"]: environment variable API_KEY is not set',
      'mcp.json:11:62 servers.remote.headers["X-Other"]: unsupported variable ${config:editor.x}: only ${NAME} and ${env:NAME} are expanded',
    ],
  },
];

describe("parseMcpConfig: bad files report every issue as file:line:column path: message", () => {
  it.each(badCases)("$name", ({ file, text, env, expected }) => {
    const source = text ?? readFixture(file ?? "");
    expect(configErrorLines(() => parseMcpConfig(source, { env: env ?? {} }))).toEqual(expected);
  });

  it("carries structured issues and never the expanded values", () => {
    const env = { REGION: "eu-secret-region", HOST: "secret host" };
    try {
      parseMcpConfig(readFixture("variables.json"), { env, fileName: "team.json" });
      expect.unreachable();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      expect(error.issues[0]).toEqual({
        file: "team.json",
        line: 5,
        column: 16,
        path: "servers.brave.args[0]",
        message: "environment variable BRAVE_API_KEY is not set",
      });
      expect(error.message).not.toMatch(/secret/);
      expect(JSON.stringify(error.toPublic())).not.toMatch(/secret/);
    }
  });
});

describe("loadMcpConfigFile", () => {
  it("names the file by its basename, never its absolute path", async () => {
    const error = await loadMcpConfigFile(fixture("cycle-2.json"), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe("cycle-2.json:3:45 servers.a.dependencies[0]: dependency cycle: a -> b -> a");
  });

  it("reports a missing file as a ConfigError without the directory", async () => {
    const error = await loadMcpConfigFile(fixture("does-not-exist.json"), {}).catch((e: unknown) => e);
    expect((error as ConfigError).message).toBe("does-not-exist.json:1:1: cannot read the file: file not found");
  });

  it("expands from process.env by default", async () => {
    const config = await loadMcpConfigFile(`${repoRoot}mcp.json`);
    expect(config.servers.map((s) => s.name)).toEqual(["filesystem"]);
  });
});

describe("dependencyOrder", () => {
  const node = (name: string, ...dependencies: string[]) => ({ name, dependencies });

  it("groups servers into levels that can start in parallel, in input order", () => {
    const servers = [node("web", "db", "cache"), node("db"), node("cache"), node("worker", "web"), node("log")];
    expect(dependencyOrder(servers)).toEqual([["db", "cache", "log"], ["web"], ["worker"]]);
  });

  it("ignores dependencies outside the given set, so a subset can be ordered", () => {
    expect(dependencyOrder([node("a", "gone"), node("b", "a")])).toEqual([["a"], ["b"]]);
  });

  it("throws the cycle as names", () => {
    expect(() => dependencyOrder([node("x"), node("a", "b"), node("b", "c"), node("c", "a")])).toThrow(new DependencyCycleError(["a", "b", "c", "a"]));
    expect(findDependencyCycles([node("a", "a")])).toEqual([["a", "a"]]);
    expect(findDependencyCycles([node("a", "b"), node("b")])).toEqual([]);
  });
});

describe("routeStdioThroughBridge", () => {
  const config = parseMcpConfig(
    JSON.stringify({
      servers: {
        fs: { command: "node", args: ["fs.js"], env: { K: "v" }, timeout: 5, alwaysAllow: ["read"], includeTools: ["read"], gateway: false },
        off: { command: "x", disabled: true, dependencies: [] },
        web: { url: "https://example.com/mcp", headers: { "X-Key": "k" } },
      },
    }),
    { env: {} },
  );

  it("turns stdio servers into bridge URLs with the token, keeping the common fields", () => {
    const routed = routeStdioThroughBridge(config, { url: "http://127.0.0.1:8788/", token: "t" });
    expect(routed.servers).toEqual([
      {
        ...common,
        name: "fs",
        timeoutMs: 5000,
        alwaysAllow: ["read"],
        includeTools: ["read"],
        gateway: false,
        transport: "http",
        url: "http://127.0.0.1:8788/servers/fs/mcp",
        headers: { Authorization: "Bearer t" },
      },
      {
        ...common,
        name: "off",
        disabled: true,
        transport: "http",
        url: "http://127.0.0.1:8788/servers/off/mcp",
        headers: { Authorization: "Bearer t" },
      },
      config.servers[2],
    ]);
  });

  it("sends no Authorization header without a token", () => {
    const routed = routeStdioThroughBridge(config, { url: "http://localhost:8788" });
    expect(routed.servers[0]).toMatchObject({ url: "http://localhost:8788/servers/fs/mcp", headers: {} });
  });
});
