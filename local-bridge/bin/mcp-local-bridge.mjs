#!/usr/bin/env node
// Entry of `npx mcp-local-bridge`: rebuilds dist/cli.mjs when a source is newer
// (in a short-lived process, so the bundler never sits in the bridge's memory),
// then runs it.
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isStale, outFile } from "../scripts/build.mjs";

if (isStale()) {
  const script = fileURLToPath(new URL("../scripts/build.mjs", import.meta.url));
  const built = spawnSync(process.execPath, [script], { stdio: ["ignore", "ignore", "inherit"] });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const { main } = await import(pathToFileURL(outFile).href);
await main(process.argv.slice(2));
