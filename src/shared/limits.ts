// Shape limits for bodies from outside: deeply nested JSON overflows the stack of
// whatever walks it next (validation, JSON.stringify, SQLite), so it is refused
// at the door with a clear error.

export const MAX_JSON_DEPTH = 64;
export const MAX_TOOL_BODY_BYTES = 1024 * 1024;

/** True when `value` nests objects/arrays deeper than `limit` (iterative: deep input cannot overflow it). */
export function tooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}
