// Builds the bridge bundle once, before any test file spawns it (parallel files
// would otherwise race to rebuild the same dist/cli.mjs).
import { build, isStale } from "../local-bridge/scripts/build.mjs";

export default async function setup(): Promise<void> {
  if (isStale()) await build();
}
