// Node-only entry to the mcp.json loader: reads the file and names it by its basename
// in every issue (issues may reach a browser, where an absolute path would leak the
// machine's layout).
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { type McpConfig, parseMcpConfig } from "./config";
import { ConfigError } from "../errors";

const READ_FAILURES: Record<string, string> = {
  ENOENT: "file not found",
  EACCES: "permission denied",
  EISDIR: "is a directory, not a file",
};

export async function loadMcpConfigFile(path: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<McpConfig> {
  const fileName = basename(path);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    // Node's own message carries the absolute path; keep only the code.
    const code = error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "unknown";
    const message = `cannot read the file: ${READ_FAILURES[code] ?? code}`;
    throw new ConfigError([{ file: fileName, line: 1, column: 1, path: "", message }]);
  }
  return parseMcpConfig(text, { fileName, env });
}
