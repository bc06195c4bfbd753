// Qualified tool names (`{server}.{tool}`) and the function names models see.
// A function name must satisfy both Gemini (`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`) and
// OpenAI (`^[a-zA-Z0-9_-]{1,64}$`), i.e. `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`. Truncation
// and sanitising can make two tools collide, so every clash gets a hash suffix and
// the map is the only way back: never parse a function name.

const MAX = 64;
const SUFFIX = 7; // "_" + 6 base36 digits

export const FUNCTION_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

export interface QualifiedName {
  server: string;
  tool: string;
}

export function qualify(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/** Server names cannot contain dots (config enforces it), so the first dot splits. */
export function splitQualified(name: string): QualifiedName | undefined {
  const dot = name.indexOf(".");
  if (dot <= 0 || dot === name.length - 1) return undefined;
  return { server: name.slice(0, dot), tool: name.slice(dot + 1) };
}

function hash36(text: string): string {
  // FNV-1a, 32 bit: stable across runtimes, no crypto needed for a name suffix.
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36).padStart(6, "0").slice(-6);
}

function baseName(qualified: string): string {
  const parts = splitQualified(qualified);
  const raw = parts ? `${parts.server}__${parts.tool}` : qualified;
  let name = raw.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (!/^[a-zA-Z_]/.test(name)) name = `_${name}`;
  return name;
}

export class FunctionNameMap {
  private readonly toFn = new Map<string, string>();
  private readonly toQualifiedName = new Map<string, string>();

  /** Names are assigned in sorted order so the same tool set always maps the same way. */
  constructor(qualifiedNames: Iterable<string>) {
    for (const qualified of [...new Set(qualifiedNames)].sort()) {
      const base = baseName(qualified);
      let candidate = base.length <= MAX ? base : `${base.slice(0, MAX - SUFFIX)}_${hash36(qualified)}`;
      for (let n = 1; this.toQualifiedName.has(candidate); n++) {
        candidate = `${base.slice(0, MAX - SUFFIX)}_${hash36(`${qualified}#${n}`)}`;
      }
      this.toFn.set(qualified, candidate);
      this.toQualifiedName.set(candidate, qualified);
    }
  }

  functionName(qualified: string): string | undefined {
    return this.toFn.get(qualified);
  }

  /** Accepts a function name or, leniently, the qualified name a model may echo back. */
  qualifiedName(name: string): string | undefined {
    return this.toQualifiedName.get(name) ?? (this.toFn.has(name) ? name : undefined);
  }

  entries(): IterableIterator<[string, string]> {
    return this.toFn.entries();
  }
}
