#!/usr/bin/env node
// The page's libraries, markdown-it, DOMPurify and highlight.js (its official browser
// build with the common languages, from @highlightjs/cdn-assets), are served from
// public/vendor/ as the browser ES modules their npm packages ship, byte for byte, with
// their licence files. They are committed (the page has no build step and `wrangler deploy`
// serves public/ as it is); the versions are the ones pinned in package.json.
//
//   node scripts/vendor-page-libs.mjs          copy them from node_modules (after a version bump)
//   node scripts/vendor-page-libs.mjs --check  exit 1 if public/vendor/ differs from node_modules
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const vendor = join(root, "public", "vendor");

/** package → [file in the package, file in public/vendor/] */
export const LIBRARIES = {
  "markdown-it": [
    ["dist/browser/markdown-it.esm.min.mjs", "markdown-it/markdown-it.esm.min.mjs"],
    ["LICENSE", "markdown-it/LICENSE"],
  ],
  dompurify: [
    ["dist/purify.es.mjs", "dompurify/purify.es.mjs"],
    ["LICENSE", "dompurify/LICENSE"],
    ["LICENSE-MPL", "dompurify/LICENSE-MPL"],
  ],
  "@highlightjs/cdn-assets": [
    ["es/highlight.min.js", "highlight.js/highlight.min.js"],
    ["LICENSE", "highlight.js/LICENSE"],
  ],
};

const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).dependencies;

function versions() {
  return Object.fromEntries(
    Object.keys(LIBRARIES).map((name) => [name, JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version]),
  );
}

function note(installed) {
  const lines = [
    "Browser builds of the page's libraries, copied verbatim from their npm packages by",
    "scripts/vendor-page-libs.mjs (run it after changing a version in package.json).",
    "",
  ];
  for (const [name, files] of Object.entries(LIBRARIES)) {
    lines.push(`${name} ${installed[name]}`);
    for (const [from, to] of files) lines.push(`  ${to}  <-  node_modules/${name}/${from}`);
  }
  lines.push("", "markdown-it: MIT. DOMPurify: MPL-2.0 OR Apache-2.0. highlight.js: BSD-3-Clause.", "");
  return lines.join("\n");
}

/** What differs between public/vendor/ and node_modules (empty when they match). */
export function differences() {
  const problems = [];
  const installed = versions();
  for (const [name, files] of Object.entries(LIBRARIES)) {
    if (pinned[name] !== installed[name]) problems.push(`${name}: package.json pins ${pinned[name]}, node_modules has ${installed[name]} (run npm install)`);
    for (const [from, to] of files) {
      const target = join(vendor, to);
      if (!existsSync(target)) problems.push(`public/vendor/${to} is missing`);
      else if (!readFileSync(target).equals(readFileSync(join(root, "node_modules", name, from))))
        problems.push(`public/vendor/${to} differs from node_modules/${name}/${from}`);
    }
  }
  const versionsFile = join(vendor, "VERSIONS.txt");
  if (!existsSync(versionsFile) || readFileSync(versionsFile, "utf8") !== note(installed)) problems.push("public/vendor/VERSIONS.txt is not up to date");
  return problems;
}

function copy() {
  for (const [name, files] of Object.entries(LIBRARIES)) {
    for (const [from, to] of files) {
      mkdirSync(dirname(join(vendor, to)), { recursive: true });
      copyFileSync(join(root, "node_modules", name, from), join(vendor, to));
    }
  }
  writeFileSync(join(vendor, "VERSIONS.txt"), note(versions()));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--check")) {
    const problems = differences();
    for (const problem of problems) console.error(problem);
    process.exit(problems.length ? 1 : 0);
  }
  copy();
  const problems = differences();
  if (problems.length) {
    for (const problem of problems) console.error(problem);
    process.exit(1);
  }
  console.log(
    `public/vendor/: ${Object.entries(versions())
      .map(([n, v]) => `${n} ${v}`)
      .join(", ")}`,
  );
}
