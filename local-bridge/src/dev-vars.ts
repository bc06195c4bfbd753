// Shares the bridge's token and URL with `wrangler dev` through .dev.vars, keeping
// every other line of the file as it was.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export function readDevVar(path: string, name: string): string | undefined {
  if (!existsSync(path)) return undefined;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (match?.[1] === name) return unquote(match[2] ?? "");
  }
  return undefined;
}

export function writeDevVars(path: string, values: Record<string, string>): void {
  const lines = existsSync(path) ? readFileSync(path, "utf8").split("\n") : [];
  const pending = new Map(Object.entries(values));
  const updated = lines.map((line) => {
    const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (!name || !pending.has(name)) return line;
    const value = pending.get(name);
    pending.delete(name);
    return `${name}=${JSON.stringify(value)}`;
  });
  while (updated.length > 0 && updated[updated.length - 1] === "") updated.pop();
  for (const [name, value] of pending) updated.push(`${name}=${JSON.stringify(value)}`);
  writeFileSync(path, `${updated.join("\n")}\n`, { mode: 0o600 });
}

function unquote(value: string): string {
  const trimmed = value.trim();
  if ((trimmed.startsWith('"') && trimmed.endsWith('"')) || (trimmed.startsWith("'") && trimmed.endsWith("'"))) return trimmed.slice(1, -1);
  return trimmed;
}
