// Builds the bridge bundle and the page once, before any test file spawns the bridge or
// `wrangler dev` (parallel files would otherwise race to rebuild the same dist/cli.mjs;
// each wrangler dev's [build] then finds dist/page up to date and writes nothing).
import { build, isStale } from "../local-bridge/scripts/build.mjs";
import * as page from "../scripts/build-page.mjs";

export default async function setup(): Promise<void> {
  await Promise.all([isStale() ? build() : undefined, page.isStale() ? page.build() : undefined]);
}
