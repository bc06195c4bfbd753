// Bundles the bridge's TypeScript (and the @edgehost/shared workspace package it imports) into
// dist/cli.mjs with rolldown, in-process (no helper processes, so a running bridge
// has exactly one child per MCP server). Packages stay external: node_modules.
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

export function isStale() {
  try {
    const built = statSync(outFile).mtimeMs;
    return sources.some((dir) => newestSource(dir) > built);
  } catch {
    return true;
  }
}

export async function build() {
  const { build: rolldown } = await import("rolldown");
  await rolldown({
    input: join(packageDir, "src", "cli.ts"),
    platform: "node",
    // Packages stay external, but the shared workspace package is TypeScript source: bundled in.
    external: (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0") && !id.startsWith("@edgehost/shared"),
    output: { file: outFile, format: "esm" },
    logLevel: "warn",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await build();
  console.log(`built ${outFile}`);
}
