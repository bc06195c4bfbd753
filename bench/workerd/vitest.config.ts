// The workers project of vitest.config.ts (real workerd, the same bindings and global setup),
// running the benches under bench/workerd/ instead of the tests: figures that need workerd's
// own hands on an object (its clock moved, its storage metered), printed, never asserted.
// Run through a bench script (bench/schedule.ts), not `npm test`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "../../vitest.config";

type Project = { test?: { name?: string; include?: string[] } };
const workers = (base.test?.projects as Project[] | undefined)?.find((p) => p.test?.name === "workers");
if (!workers?.test) throw new Error("vitest.config.ts has no workers project");

export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    projects: [{ ...workers, test: { ...workers.test, name: "workers-bench", include: ["bench/workerd/**/*.bench.ts"] } }],
  },
});
