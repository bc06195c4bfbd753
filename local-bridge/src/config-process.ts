// Loads mcp.json through config-loader.ts in a child process (about 0.1 s), so the
// config parser never sits in the bridge's memory. The answer is turned back into what
// loadMcpConfigFile would have returned or thrown: the config, or a ConfigError with
// the same issues (so the same message), or an Error.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@edgehost/shared/errors";
import type { McpConfig } from "@edgehost/shared/mcp-config/config";
import type { LoaderAnswer } from "./config-loader";

// Next to the bundle this file is built into (dist/cli.mjs): the build emits both.
const LOADER = fileURLToPath(new URL("./config-loader.mjs", import.meta.url));

export function loadConfig(path: string): Promise<McpConfig> {
  return new Promise((resolve, reject) => {
    // The bridge's own environment: ${VAR} in mcp.json expands from it, as before.
    const child = spawn(process.execPath, [LOADER, path], { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.once("error", (error) => reject(new Error(`could not run the mcp.json parser: ${error.message}`)));
    child.once("close", (code, signal) => {
      let answer: LoaderAnswer;
      try {
        answer = JSON.parse(out) as LoaderAnswer;
      } catch {
        const why = signal ? `killed by ${signal}` : `exit code ${code}`;
        return reject(new Error(`the mcp.json parser failed (${why})${err.trim() ? `: ${err.trim().split("\n").slice(-3).join(" | ")}` : ""}`));
      }
      if ("config" in answer) resolve(answer.config as McpConfig);
      else if ("issues" in answer) reject(new ConfigError(answer.issues));
      else reject(new Error(answer.message));
    });
  });
}
