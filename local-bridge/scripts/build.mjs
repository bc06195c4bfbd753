// Bundles the bridge's TypeScript (and the @edgehost/shared workspace package it imports) into
// dist/cli.mjs, dist/config-loader.mjs (the mcp.json parser, run in its own short-lived
// process) and dist/connect.mjs (`connect` mode, loaded only when asked for) with rolldown, in-process (the bundler never runs inside the bridge).
// Packages stay external: node_modules.
import { statSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const packageDir = join(here, "..");
export const outFile = join(packageDir, "dist", "cli.mjs");
const sources = [join(packageDir, "src"), join(packageDir, "..", "src", "shared")];

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const bundles = [outFile, join(dirname(outFile), "config-loader.mjs"), join(dirname(outFile), "connect.mjs")];
// Each with its source map: `npm run coverage` maps what a bridge process ran back onto src/.
const outputs = [...bundles, ...bundles.map((file) => `${file}.map`)];

export function isStale() {
  try {
    const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
    return sources.some((dir) => newestSource(dir) > built);
  } catch {
    return true;
  }
}

export async function build() {
  const { build: rolldown } = await import("rolldown");
  // Two builds, not one with two inputs: a shared chunk would make the bridge import zod
  // for the loader's sake (rolldown keeps an external's import in every chunk that had it).
  for (const name of ["cli", "config-loader", "connect"]) {
    await rolldown({
      input: join(packageDir, "src", `${name}.ts`),
      platform: "node",
      // Packages stay external, but the shared workspace package is TypeScript source: bundled in.
      // dist/connect.mjs is a bundle of its own, loaded by cli.mjs beside it.
      external: (id) => id === "./connect.mjs" || (!id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0") && !id.startsWith("@edgehost/shared")),
      // Building a zod schema has no side effect: unused ones (the metrics snapshot shapes next
      // to ServerStats in @edgehost/shared/metrics) drop out, and zod with them, which keeps zod
      // out of the running bridge (tests/bridge/bridge.memory.test.ts checks the bundle).
      treeshake: { manualPureFunctions: ["z", "CallStatsSchema"], moduleSideEffects: "no-external" },
      output: { file: join(dirname(outFile), `${name}.mjs`), format: "esm", sourcemap: true },
      logLevel: "warn",
    });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await build();
  console.log(`built ${outFile}`);
}
