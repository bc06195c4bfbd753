// Two projects: `node` (bridge, host over stdio, Node-side tools) and `workers`
// (code that ships in the Worker, run inside real workerd).
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
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
                // The production sign-in path: tests call as named bearer-token users.
                AUTH_MODE: "token",
                DAILY_TOKEN_BUDGET: "10000000",
                // Short, so the idle-model test ends quickly; no other test's model idles this long.
                LLM_IDLE_TIMEOUT_MS: "2000",
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
