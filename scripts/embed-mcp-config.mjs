#!/usr/bin/env node
// Embeds mcp.json's text into the Worker bundle (src/generated/mcp-config.ts), so
// the Worker reads the same file as the bridge, with its line numbers intact for
// error messages. Run by wrangler's [build] step before `dev` and `deploy`.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const text = readFileSync(join(root, "mcp.json"), "utf8");
const out = join(root, "src", "generated", "mcp-config.ts");
const body = `// Generated from mcp.json by scripts/embed-mcp-config.mjs: do not edit.\nexport const MCP_JSON = ${JSON.stringify(text)};\n`;
if (!existsSync(out) || readFileSync(out, "utf8") !== body) writeFileSync(out, body);
