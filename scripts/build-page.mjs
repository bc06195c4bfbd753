#!/usr/bin/env node
// Builds the page (public/) into dist/page/, wrangler's assets directory:
//   index.html                 the page, always revalidated, naming the two files below; its
//                              dialogs come from partials by concern (`<!-- include: PATH -->`)
//   assets/page-<hash>.js      every module from core/app.js on, vendor libraries included (rolldown)
//   assets/markdown-<hash>.js  the Markdown renderer (markdown-it, DOMPurify), imported once the page
//                              is interactive (chat/markdown-load.js), prefetched by index.html
//   assets/page-<hash>.css     the page's stylesheets, in index.html's order, concatenated
//   assets/highlight-worker-<hash>.js
//                              chat/highlight-worker.js (highlight.js off the main thread); the
//                              page bundle gets its name as HIGHLIGHT_WORKER (rolldown's define)
//   _headers                   assets/* are immutable for a year: a new build is a new name
//   style.css admin.css share.css oauth-callback.js
//                              the Worker's own pages (admin, OAuth, shared link) link these
//                              by fixed URL, so they keep their names and are revalidated
//   sw.js                      the service worker (push notifications): a fixed URL is its
//                              identity, copied as it is and always revalidated
// One file of each kind instead of 61: a cold load is a handful of requests and a reload
// revalidates only index.html. Runs as part of wrangler's [build] (npm run dev, every
// `wrangler dev` a test starts, wrangler deploy) and in the test runs' global setups.
// Nothing is written when the inputs have not changed since the last build (dist/page/.inputs
// holds their hash), so the many `wrangler dev` starts of a test run rebuild nothing and
// never rewrite files another running stack is serving.
//
//   node scripts/build-page.mjs          build if the inputs changed
//   node scripts/build-page.mjs --force  build anyway
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "public");
export const outDir = join(root, "dist", "page");
const stampFile = join(outDir, ".inputs");

/** Served at fixed URLs for the Worker's own pages (src/http/admin-page.ts, oauth-pages.ts, src/share/share-page.ts). */
const FIXED_CSS = ["style.css", "admin.css", "share.css"];
const FIXED_SCRIPT = "oauth-callback.js";
/** The service worker (docs/notifications.md): its URL is its identity, so it keeps it; no-cache so an update is seen. */
const SERVICE_WORKER = "sw.js";
/** The chat's Web Worker (public/chat/code-highlight.js starts it), a bundle of its own. */
const HIGHLIGHT_WORKER = "chat/highlight-worker.js";
/** Lazily imported chunks index.html prefetches: wanted on every page, but not before it is interactive. */
const PREFETCHED = /^assets\/markdown-[\w-]+\.js$/;
/** How long a replaced build's hashed files stay. */
const KEEP_OLD_MS = 60 * 60 * 1000;
const HEADERS = `# Written by scripts/build-page.mjs. A content-hashed file never changes under its name.
/assets/*
  Cache-Control: public, max-age=31536000, immutable
/sw.js
  Cache-Control: no-cache
`;

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** Files outside public/ that the page bundles: the Markdown rules the shared page renders by too. */
const SHARED_WITH_WORKER = ["src/share/markdown-rules.ts"];

/** A hash of everything the output depends on: the page's files, this script, the bundler's version. */
function inputsHash() {
  const hash = createHash("sha256");
  const rolldownVersion = JSON.parse(readFileSync(join(root, "node_modules", "rolldown", "package.json"), "utf8")).version;
  hash.update(`rolldown ${rolldownVersion}\0`);
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  for (const file of filesUnder(source).sort()) {
    hash.update(`\0${relative(source, file)}\0`);
    hash.update(readFileSync(file));
  }
  // The one module the page takes from the Worker's source (public/chat/markdown-setup.js).
  for (const file of SHARED_WITH_WORKER) hash.update(`\0${file}\0`).update(readFileSync(join(root, file)));
  return hash.digest("hex");
}

export function isStale() {
  return !existsSync(stampFile) || readFileSync(stampFile, "utf8") !== inputsHash();
}

const shortHash = (text) => createHash("sha256").update(text).digest("hex").slice(0, 10);

/**
 * Bundles `entry`, minified with licence comments kept: `{ entry: code, files: { "assets/<name>-<hash>.js": code } }`
 * (the lazily imported modules' chunks). `name`: the entry's file name, `[hash]` for a content hash;
 * `define`: global names replaced by the given code.
 */
async function bundle(entry, name, define = {}) {
  // Imported here: a build with nothing to do does not load the bundler.
  const { rolldown } = await import("rolldown");
  const build = await rolldown({ input: join(source, entry), logLevel: "warn", transform: { define } });
  try {
    const { output } = await build.generate({
      format: "esm",
      minify: true,
      comments: { legal: true },
      entryFileNames: name,
      chunkFileNames: "assets/[name]-[hash].js",
    });
    const files = {};
    let main;
    for (const file of output) {
      if (file.type !== "chunk") throw new Error(`${entry}: unexpected output ${file.fileName}`);
      if (file.isEntry) main = file;
      else files[file.fileName] = file.code;
    }
    return { name: main.fileName, code: main.code, files };
  } finally {
    await build.close();
  }
}

/**
 * index.html with each `<!-- include: PATH -->` line replaced by that file of public/ (a partial:
 * a concern's dialogs, kept beside its script so index.html stays the shell), less the partial's
 * first line, the comment saying what it holds. One level: a partial includes nothing.
 */
export function withIncludes(html) {
  return html.replace(/^ *<!-- include: ([\w/-]+\.html) -->\n/gm, (_, path) => {
    const partial = readFileSync(join(source, path), "utf8");
    if (!partial.startsWith("<!--")) throw new Error(`public/${path} must start with a comment saying what it holds`);
    return partial.slice(partial.indexOf("\n") + 1);
  });
}

/** index.html's stylesheets, in order, and its one module script. */
function pageParts(html) {
  const styles = [...html.matchAll(/^\s*<link rel="stylesheet" href="\/([^"]+)">\n/gm)];
  const scripts = [...html.matchAll(/<script type="module" src="\/([^"]+)"><\/script>/g)];
  if (styles.length === 0) throw new Error("public/index.html links no stylesheet");
  if (scripts.length !== 1) throw new Error(`public/index.html must load exactly one module script, found ${scripts.length}`);
  return { styles, script: scripts[0] };
}

/** Writes `text` to `path` unless it already holds exactly that (a running wrangler dev sees no change). */
function put(path, text) {
  if (existsSync(path) && readFileSync(path).equals(Buffer.from(text))) return;
  mkdirSync(dirname(path), { recursive: true });
  // Whole or not at all: a server reading the file meanwhile sees the old or the new one.
  const temp = `${path}.${process.pid}-${randomUUID()}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

export async function build() {
  const started = performance.now();
  const inputs = inputsHash();
  const html = withIncludes(readFileSync(join(source, "index.html"), "utf8"));
  const { styles, script } = pageParts(html);

  const css = styles.map((match) => `/* ${match[1]} */\n${readFileSync(join(source, match[1]), "utf8")}`).join("\n");
  // First: the page bundle names it, so a new worker is a new page bundle too.
  const worker = await bundle(HIGHLIGHT_WORKER, "assets/highlight-worker-[hash].js");
  const js = await bundle(script[1], "assets/page-[hash].js", { HIGHLIGHT_WORKER: JSON.stringify(`/${worker.name}`) });
  const callback = await bundle(FIXED_SCRIPT, FIXED_SCRIPT);
  const cssName = `assets/page-${shortHash(css)}.css`;
  const jsName = js.name;

  // The first stylesheet's line becomes the bundle's; the others go.
  let page = html.replace(styles[0][0], styles[0][0].replace(`/${styles[0][1]}`, `/${cssName}`));
  for (const match of styles.slice(1)) page = page.replace(match[0], "");
  // The Markdown renderer's chunk (chat/markdown-load.js imports it once the page is idle after its socket opens):
  // fetched ahead at the lowest priority, so that import finds it in the cache and only evaluates it.
  const later = Object.keys(js.files).filter((name) => PREFETCHED.test(name));
  const prefetch = later.map((name) => `\n  <link rel="prefetch" href="/${name}" as="script" crossorigin>`).join("");
  page = page.replace(script[0], `${script[0].replace(`/${script[1]}`, `/${jsName}`)}${prefetch}`);

  mkdirSync(outDir, { recursive: true });
  put(join(outDir, cssName), css);
  const hashed = { [cssName]: css, [jsName]: js.code, ...js.files, [worker.name]: worker.code, ...worker.files, ...callback.files };
  for (const [name, text] of Object.entries(hashed)) put(join(outDir, name), text);
  for (const name of FIXED_CSS) put(join(outDir, name), readFileSync(join(source, name), "utf8"));
  put(join(outDir, FIXED_SCRIPT), callback.code);
  put(join(outDir, SERVICE_WORKER), readFileSync(join(source, SERVICE_WORKER), "utf8"));
  put(join(outDir, "_headers"), HEADERS);
  // Last, so the page never names files not yet written.
  put(join(outDir, "index.html"), page);

  // Older builds' hashed files go once they are an hour old: a page loaded just before this
  // build (another test's stack, another tab under npm run dev) still finds its script, and
  // a lazily loaded chunk of it.
  const keep = new Set(Object.keys(hashed).map((name) => name.slice("assets/".length)));
  const old = Date.now() - KEEP_OLD_MS;
  for (const name of readdirSync(join(outDir, "assets"))) {
    const path = join(outDir, "assets", name);
    if (!keep.has(name) && statSync(path).mtimeMs < old) rmSync(path, { force: true });
  }
  put(stampFile, inputs);

  const size = (name) => statSync(join(outDir, name)).size;
  const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
  return `[build-page] ${jsName} ${kib(size(jsName))}, ${cssName} ${kib(size(cssName))} in ${(performance.now() - started).toFixed(0)} ms`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes("--force") || isStale()) console.log(await build());
  } catch (error) {
    console.error(`[build-page] ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
