// Two projects: `node` (the bridge, the host as the Worker runs it, Node-side tools)
// and `workers` (code that ships in the Worker, run inside real workerd).
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

// workerd must trust the test push service's CA (tests/fixtures/push-tls/trust.ts), and
// Miniflare reads NODE_EXTRA_CA_CERTS once, when it is first loaded: the variable is set
// first, and the pool (which loads Miniflare) imported after it. A static import would be
// hoisted above this line.
process.env.NODE_EXTRA_CA_CERTS = fileURLToPath(new URL("./tests/fixtures/push-tls/ca.pem", import.meta.url));
const { cloudflareTest } = await import("@cloudflare/vitest-pool-workers");

// A green run stays quiet: output known to be noise is dropped, and nothing else. A write
// is dropped only when it is exactly such a message, so failures and any other workerd or
// Vite message still show.
// - workerd reports each WebSocket or stream a test closed as a disconnection (with an
//   unsymbolized stack). vitest-pool-workers 0.15.1 gives miniflare a fixed
//   handleStructuredLogs that writes these to process.stdout/stderr; its ignore list misses
//   them, and `miniflare` options here are per-worker, so they cannot replace it.
// - Vite warns when a dependency's source map names sources it does not ship (the MCP SDK,
//   @google/genai, cron-schedule). Vitest replaces a project's customLogger, so the
//   warning is dropped in the resolved logger.
// - A fetch to a port nobody listens on (the unreachable-server cases) is reported by
//   workerd as a refused connect followed by two "Network connection lost" lines, even
//   when the script catches the rejection (a bare caught fetch in a test shows the same
//   three); those two are dropped only right after such a refused connect.
const DISCONNECTED = String.raw`exception = (kj/async-io\.c\+\+:\d+: disconnected: stream disconnected prematurely|workerd/api/web-socket\.c\+\+:\d+: disconnected: WebSocket peer disconnected)\n`;
const WORKERD_STACK = String.raw`stack:( \S*/workerd@[0-9a-f]+)+\n`;
const NOISE = new RegExp(`^${DISCONNECTED}(${WORKERD_STACK})?$`);
const REFUSED = new RegExp(String.raw`^exception = kj/async-io-unix\.c\+\+:\d+: disconnected: connect\(\): Connection refused\n(${WORKERD_STACK})?$`);
const LOST_AFTER_REFUSED = new RegExp(
  String.raw`^uncaught exception; (source = Uncaught \(in promise\); stack = Error: Network connection lost\.|exception = workerd/jsg/\S+/value\.h:\d+: disconnected: jsg\.Error: Network connection lost\.)\n(${WORKERD_STACK})?$`,
);
const MISSING_SOURCES = /^Sourcemap for "[^"]+" points to missing source files$/;

/** How many "connection lost" reports of the last refused connect are still to come (both streams). */
let lostToCome = 0;

function isNoise(chunk: string): boolean {
  if (NOISE.test(chunk)) return true;
  if (REFUSED.test(chunk)) {
    lostToCome = 2;
    return true;
  }
  if (lostToCome > 0 && LOST_AFTER_REFUSED.test(chunk)) {
    lostToCome--;
    return true;
  }
  return false;
}

function dropNoise(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    if (typeof chunk !== "string" || !isNoise(chunk)) return write(chunk, ...rest);
    const callback = rest.find((arg): arg is () => void => typeof arg === "function");
    if (callback) queueMicrotask(callback);
    return true;
  }) as typeof stream.write;
}

function quietKnownNoise(): Plugin {
  let streams = false;
  return {
    name: "edgehost:quiet-known-noise",
    configResolved(config) {
      const warnOnce = config.logger.warnOnce.bind(config.logger);
      config.logger.warnOnce = (message, options) => {
        if (!MISSING_SOURCES.test(message)) warnOnce(message, options);
      };
      if (streams) return;
      streams = true;
      dropNoise(process.stdout);
      dropNoise(process.stderr);
    },
  };
}

export default defineConfig({
  test: {
    // With `--coverage` only (`npm run coverage`): istanbul, because vitest-pool-workers cannot run
    // V8's coverage inside workerd. Code run in child processes (the bridge CLI, `wrangler dev`) is
    // not seen here; scripts/coverage.mjs adds the bridge's (docs/developing.md#coverage).
    coverage: {
      provider: "istanbul",
      include: ["src/**/*.ts", "local-bridge/src/**/*.ts"],
      reporter: ["text", "text-summary", "html", "json-summary"],
      reportsDirectory: "coverage",
      // The figure of a long run is worth seeing even when one test failed (the exit code still says so).
      reportOnFailure: true,
    },
    projects: [
      {
        test: {
          name: "node",
          include: ["tests/**/*.test.ts"],
          exclude: ["tests/workers/**", "**/node_modules/**"],
          environment: "node",
          globalSetup: ["tests/global-setup.node.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [
          quietKnownNoise(),
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // The Worker under test reaches the servers global-setup started.
              bindings: {
                GEMINI_API_KEY: inject("sessionLlmKey"),
                GEMINI_BASE_URL: inject("fakeLlmUrl"),
                BRIDGE_URL: inject("bridgeUrl"),
                BRIDGE_TOKEN: inject("bridgeToken"),
                MCP_CONFIG: inject("mcpConfig"),
                LLM_RETRY_INITIAL_MS: "10",
                RATE_LIMIT_PER_MINUTE: "600",
                RATE_LIMIT_BURST: "100",
                // Short, so a held /mcp call's "not answered in time" is seen in seconds (tests/workers/gateway/held-approvals.test.ts);
                // the page's answer to a held call is sent on the call's first progress notification, well within it.
                GATEWAY_HOLD_MS: "3000",
                // The production sign-in path: tests call as named bearer-token users.
                AUTH_MODE: "token",
                DAILY_TOKEN_BUDGET: "10000000",
                // The fixture servers users add at runtime listen on 127.0.0.1, and the tests' host
                // (edgehost.test) counts as deployed; the refusal itself is tested on wrangler dev.
                ALLOW_PRIVATE_SERVER_URLS: "true",
                // Short, so the idle-model test ends quickly; no other test's model idles this long.
                LLM_IDLE_TIMEOUT_MS: "2000",
                // The operator's words: tests/workers/http/presets.test.ts checks a person's own instructions come after them.
                SYSTEM_PROMPT: "Operator rule: this is the test deployment.",
                // A green run stays quiet: only errors are logged here. The log lines themselves
                // are checked on the real stack (tests/reliability/logs.test.ts).
                LOG_LEVEL: "error",
                // Expiry is driven by hand in tests/workers/session/session.expiry.test.ts (a date 31 days on).
                SESSION_TTL_DAYS: "30",
                // Small, so tests/workers/http/files.test.ts reaches each limit with a few KB.
                UPLOAD_MAX_FILE_BYTES: "100000",
                UPLOAD_MAX_FILES: "3",
                UPLOAD_QUOTA_BYTES: "250000",
                // Small, so tests/workers/session/session.people.test.ts reaches the cap with the test users.
                INVITES_PER_CHAT: "3",
                // Dave is the operator: tests/workers/http/admin.test.ts reads /admin as him.
                ADMIN_USERS: "dave",
                // Push (issue 39): keys made fresh by global-setup.ts; the test push service is on localhost.
                VAPID_PUBLIC_KEY: inject("vapid").publicKey,
                VAPID_PRIVATE_KEY: inject("vapid").privateKey,
                VAPID_SUBJECT: inject("vapid").subject,
                PUSH_SERVICE_HOSTS: "localhost,127.0.0.1",
                // A turn of a second is "long": tests/workers/push/notify.test.ts paces its model past it.
                PUSH_LONG_TURN_SECONDS: "1",
                ACCESS_TOKENS: Object.entries(inject("testUsers"))
                  .map(([name, token]) => `${name}:${token}`)
                  .join(","),
              },
            },
          })),
        ],
        test: {
          name: "workers",
          include: ["tests/workers/**/*.test.ts"],
          globalSetup: ["tests/workers/global-setup.ts"],
          testTimeout: 30_000,
          // Session tests share one scripted model key: files run one at a time.
          fileParallelism: false,
        },
      },
    ],
  },
});
