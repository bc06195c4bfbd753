// When the test stack's `wrangler dev` is up (tests/fixtures/stack.ts): after the rebuild its
// file watcher makes once it is ready, and after the reload that rebuild causes when it comes
// after the first start. The logs are wrangler 4.86's own lines, in the two orders seen.
import { describe, expect, it } from "vitest";
import { rebuiltAtWatcherReady } from "../fixtures/stack";

const built = "[custom build] Running: node scripts/embed-mcp-config.mjs && node scripts/build-page.mjs\nYour Worker has access to the following bindings:\n";
const rebuild =
  "The file mcp.json,src,public changed, restarting build...\n[custom build] Running: node scripts/embed-mcp-config.mjs && node scripts/build-page.mjs\n";
const started = "⎔ Starting local server...\n[wrangler:info] ✨ Parsed 2 valid header rules.\n[wrangler:info] Ready on http://127.0.0.1:34553\n";

describe("a test stack's start", () => {
  it("is done when the watcher's rebuild came before the first start", () => {
    expect(rebuiltAtWatcherReady(built + rebuild + started)).toBe(true);
  });

  it("is not done at Ready while the watcher has not rebuilt, nor while the reload it causes runs", () => {
    expect(rebuiltAtWatcherReady(built + started)).toBe(false);
    const reloading = `${built + started + rebuild}⎔ Reloading local server...\n[wrangler:info] ✨ Parsed 2 valid header rules.\n`;
    expect(rebuiltAtWatcherReady(reloading)).toBe(false);
    expect(rebuiltAtWatcherReady(`${reloading}⎔ Local server updated and ready\n`)).toBe(true);
  });
});
