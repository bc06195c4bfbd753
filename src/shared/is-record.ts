// The one test for "a plain JSON object" that schema walkers and argument checks share
// (arrays and null are not records).

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
