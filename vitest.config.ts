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
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
          }),
        ],
        test: {
          name: "workers",
          include: ["tests/workers/**/*.test.ts"],
          globalSetup: ["tests/workers/global-setup.ts"],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
