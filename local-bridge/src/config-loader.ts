// Entry of the short-lived process that parses mcp.json for the bridge (config-process.ts
// starts it): the parser's zod schemas and jsonc-parser cost the bridge about 12 MB for
// as long as it runs, while parsing happens at start and on a reload only. Writes one
// JSON line: the parsed config, or the ConfigError's issues, or a message.
import { ConfigError } from "@edgehost/shared/errors";
import { errorMessage } from "@edgehost/shared/logger";
import { loadMcpConfigFile } from "@edgehost/shared/mcp-config/config-file";

export type LoaderAnswer = { config: unknown } | { issues: ConfigError["issues"] } | { message: string };

async function run(path: string): Promise<LoaderAnswer> {
  try {
    return { config: await loadMcpConfigFile(path) };
  } catch (error) {
    return error instanceof ConfigError ? { issues: error.issues } : { message: errorMessage(error) };
  }
}

const path = process.argv[2];
if (path !== undefined) process.stdout.write(`${JSON.stringify(await run(path))}\n`);
