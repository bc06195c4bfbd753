#!/usr/bin/env node
// Run by `npm test` before the browser tests: makes sure Debian's Chromium is
// installed. As root it installs the package (apt reaches Debian's mirrors);
// otherwise it stops with the command to run. The browser tests never skip.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (existsSync(path)) process.exit(0);

if (process.getuid?.() !== 0) {
  console.error(
    `Chromium is missing at ${path}. Install it with:\n  sudo apt-get update && sudo apt-get install -y chromium\n(or set CHROMIUM_PATH to a Chromium binary)`,
  );
  process.exit(1);
}
console.log("Installing Debian's chromium for the browser tests…");
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
execFileSync("apt-get", ["update"], { stdio: "inherit", env });
execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], { stdio: "inherit", env });
if (!existsSync(path)) {
  console.error(`apt-get finished but ${path} is still missing`);
  process.exit(1);
}
