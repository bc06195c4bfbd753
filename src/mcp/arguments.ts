// Validates tool arguments against the tool's `inputSchema` before anything is
// sent, turning JSON Schema failures into one issue per bad field. Uses
// @cfworker/json-schema because Ajv generates code, which workerd forbids.
import { Validator, type OutputUnit, type SchemaDraft } from "@cfworker/json-schema";
import type { FieldIssue } from "../shared/errors";
import { isRecord } from "../shared/is-record";

// Keywords that only say "something below me failed"; their children carry the detail.
const CONTAINERS = new Set([
  "properties",
  "items",
  "prefixItems",
  "additionalProperties",
  "allOf",
  "$ref",
  "patternProperties",
  "unevaluatedProperties",
  "dependentSchemas",
  "then",
  "else",
  "if",
]);

export type ArgumentsValidator = (args: Record<string, unknown>) => FieldIssue[];

export function createArgumentsValidator(schema: Record<string, unknown>): ArgumentsValidator {
  // Built at the first call, not at discovery: a server with hundreds of tools would
  // otherwise cost milliseconds at every connect (a new session's first turn runs beside it).
  let validator: Validator | undefined;
  return (args) => {
    validator ??= new Validator(schema as never, draftOf(schema), false);
    const result = validator.validate(args);
    return result.valid ? [] : toFieldIssues(result.errors);
  };
}

/**
 * The arguments without the optional ones set to `null` where their schema does not admit null:
 * models often write null for "not given", and a client omits such a field (conformance
 * sep-2243-client-omit-null: no value, so no `Mcp-Param-*` header) rather than refusing the call
 * or sending a value the server's schema rejects. Required fields and ones that allow null stay.
 */
export function withoutNullOptionals(schema: Record<string, unknown>, args: Record<string, unknown>): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(args)) {
    if (value !== null || required.has(key) || !Object.hasOwn(properties, key) || admitsNull(properties[key])) continue;
    out ??= { ...args };
    delete out[key];
  }
  return out ?? args;
}

/** Whether a property schema lets `null` through (one with no type or alternatives says nothing against it). */
function admitsNull(schema: unknown): boolean {
  if (!isRecord(schema)) return schema !== false;
  if ("const" in schema) return schema.const === null;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray);
  if (alternatives) return alternatives.some(admitsNull);
  if (typeof schema.type === "string") return schema.type === "null";
  if (Array.isArray(schema.type)) return schema.type.includes("null");
  return true;
}

function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("draft-04")) return "4";
  if (declared.includes("draft-07") || declared.includes("draft-06")) return "7";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

function toFieldIssues(errors: OutputUnit[]): FieldIssue[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const unit of errors) {
    if (CONTAINERS.has(unit.keyword)) continue;
    const issue = describe(unit);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function describe(unit: OutputUnit): FieldIssue {
  const segments = pointerSegments(unit.instanceLocation);
  switch (unit.keyword) {
    case "required": {
      const missing = /"([^"]*)"/.exec(unit.error)?.[1] ?? "";
      return { path: formatPath([...segments, missing]), message: "is required" };
    }
    case "false":
      return { path: formatPath(segments), message: "is not an allowed property" };
    case "type": {
      const expected = /Expected "([^"]+)"/.exec(unit.error)?.[1];
      const actual = /Instance type "([^"]+)"/.exec(unit.error)?.[1];
      return { path: formatPath(segments), message: expected ? `expected ${expected}${actual ? `, got ${actual}` : ""}` : unit.error };
    }
    case "enum":
      return { path: formatPath(segments), message: unit.error.replace(/^Instance does not match any of/, "must be one of") };
    default:
      return { path: formatPath(segments), message: unit.error };
  }
}

function pointerSegments(location: string): string[] {
  const pointer = location.startsWith("#") ? location.slice(1) : location;
  if (pointer === "" || pointer === "/") return [];
  return pointer
    .split("/")
    .slice(1)
    .map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** `["edits", "0", "oldText"]` → `edits[0].oldText`. */
export function formatPath(segments: string[]): string {
  let out = "";
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
