// Shares the bridge's token and URL with `wrangler dev` through .dev.vars, keeping
// every other line of the file as it was. The file holds secrets: it is left
// owner-only (0600) whenever the bridge writes it, including a file created looser.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";

export function readDevVar(path: string, name: string): string | undefined {
  if (!existsSync(path)) return undefined;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (match?.[1] === name) return unquote(match[2] ?? "");
  }
  return undefined;
}

/** Sets `values` in the file; returns false when they were already there (the file is not rewritten). */
export function writeDevVars(path: string, values: Record<string, string>): boolean {
  const before = existsSync(path) ? readFileSync(path, "utf8") : undefined;
  const lines = before === undefined ? [] : before.split("\n");
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
  const after = `${updated.join("\n")}\n`;
  // An unchanged file is not rewritten: tools watching it would restart for nothing.
  if (after !== before) writeFileSync(path, after, { mode: 0o600 });
  chmodSync(path, 0o600);
  return after !== before;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  if ((trimmed.startsWith('"') && trimmed.endsWith('"')) || (trimmed.startsWith("'") && trimmed.endsWith("'"))) return trimmed.slice(1, -1);
  return trimmed;
}
