// One of the page's modules on its own in the browser, for tests that call it directly
// (the Markdown renderer against a fresh render). The page itself is one bundle
// (scripts/build-page.mjs), so its modules have no URL of their own: the module is bundled
// here from public/ with the same bundler and served to this page alone at /__module/<path>.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { rolldown } from "rolldown";
import { repoRoot } from "../fixtures/servers";

/** Serves public/`path` (bundled with its imports) to `page` at `/__module/<path>`; resolves to that path. */
export async function servePageModule(page: Page, origin: string, path: string): Promise<string> {
  const build = await rolldown({ input: join(repoRoot, "public", path), logLevel: "warn" });
  const { output } = await build.generate({ format: "esm", codeSplitting: false });
  await build.close();
  const url = `/__module/${path}`;
  await page.route(`${origin}${url}`, (route) => route.fulfill({ contentType: "text/javascript", body: output[0].code }));
  return url;
}
