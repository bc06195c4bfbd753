// Makes MCP tool input schemas (any JSON Schema draft) acceptable to Gemini's
// function declarations. Gemini's documented schema is an OpenAPI 3.0 subset
// (the `Schema` proto: type, format, title, description, nullable, enum, items,
// properties, required, anyOf, min/max{Items,Length,Properties}, minimum, maximum,
// pattern, default, propertyOrdering). `parametersJsonSchema` accepts more on
// newer models, but requests with `additionalProperties`, type arrays or `$schema`
// have been rejected in the field, so we emit only that subset: an allow-list is
// the only approach that stays correct when a server invents new keywords.
// Total: never throws; anything unusable degrades to a looser schema.
import { isRecord } from "../shared/is-record";
import { resolveRef } from "./json-pointer";

export type JsonSchema = Record<string, unknown>;

/** Nesting depth after which a sub-schema becomes `{}` (any value): guards huge or cyclic input. */
const MAX_DEPTH = 32;
/** How often one `$ref` may be expanded along a single path: recursive types are unrolled this far. */
const MAX_SAME_REF = 2;
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array"]);
/** Formats Gemini documents; others are moved into the description so the model still sees them. */
const FORMATS: Record<string, Set<string>> = {
  string: new Set(["date-time", "date", "time", "enum"]),
  number: new Set(["float", "double"]),
  integer: new Set(["int32", "int64"]),
};
/** Keywords that only make sense for one type: used to split `type: [a, b]` into anyOf branches. */
const TYPE_KEYWORDS: Record<string, string[]> = {
  object: ["properties", "required", "minProperties", "maxProperties", "propertyOrdering"],
  array: ["items", "minItems", "maxItems"],
  string: ["minLength", "maxLength", "pattern", "enum", "format"],
  number: ["minimum", "maximum", "format"],
  integer: ["minimum", "maximum", "format"],
};
const COUNTS = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"];

/** Sub-schemas converted per call, at most: bounds the work on fan-out cycles (`a` and `b` both referencing the root). */
const MAX_NODES = 5_000;

interface Walk {
  root: unknown;
  depth: number;
  refs: string[];
  budget: { left: number };
}

/** A copy of `schema` that Gemini accepts as function parameters: always `{type: "object", properties}` at the root. */
export function sanitizeForGemini(schema: unknown): JsonSchema {
  try {
    return asRootObject(convert(schema, { root: schema, depth: 0, refs: [], budget: { left: MAX_NODES } }));
  } catch {
    // Only reachable on hostile input (e.g. throwing getters); a tool without parameters is still callable.
    return { type: "object", properties: {} };
  }
}

function convert(node: unknown, walk: Walk): JsonSchema {
  if (!isRecord(node) || walk.depth > MAX_DEPTH || walk.budget.left-- <= 0) return {};
  const deeper = (value: unknown, refs = walk.refs): JsonSchema => convert(value, { ...walk, depth: walk.depth + 1, refs });

  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    const target = walk.refs.filter((r) => r === ref).length < MAX_SAME_REF ? resolveRef(walk.root, ref) : undefined;
    // Unresolvable (remote) or too deeply recursive: allow any value, and say what it was.
    const resolved =
      target === undefined ? { description: `Same structure as ${ref.replace(/^#\/(\$defs|definitions)\//, "")}.` } : deeper(target, [...walk.refs, ref]);
    const { $ref: _ref, ...siblings } = node;
    return Object.keys(siblings).length === 0 ? resolved : mergeInto(resolved, deeper(siblings));
  }

  const out: JsonSchema = {};
  if (typeof node.title === "string") out.title = node.title;
  if (typeof node.description === "string") out.description = node.description;
  if (node.nullable === true) out.nullable = true;

  // Types: `["T", "null"]` becomes `T` + nullable; several real types become anyOf branches.
  const declared = (Array.isArray(node.type) ? node.type : [node.type]).filter((t): t is string => typeof t === "string");
  if (declared.includes("null")) out.nullable = true;
  const types = [...new Set(declared.filter((t) => TYPES.has(t)))];
  if (types.length === 1) out.type = types[0];

  // Property names are kept as written: Gemini restricts function names, not property names,
  // and a renamed property would change the arguments the tool receives.
  if (isRecord(node.properties)) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([name, value]) => [name, deeper(value)]));
  }
  if (Array.isArray(node.required)) out.required = [...new Set(node.required.filter((r): r is string => typeof r === "string"))];
  if (Array.isArray(node.propertyOrdering)) out.propertyOrdering = node.propertyOrdering.filter((p): p is string => typeof p === "string");

  // Arrays: tuple forms (`items: [...]`, `prefixItems`) have no Gemini equivalent; any listed item shape is allowed.
  const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
  if (tuple) out.items = unionOf(tuple.map((item) => deeper(item)));
  else if (isRecord(node.items)) out.items = deeper(node.items);

  for (const key of COUNTS) if (Number.isInteger(node[key]) && (node[key] as number) >= 0) out[key] = node[key];
  if (typeof node.minimum === "number") out.minimum = node.minimum;
  if (typeof node.maximum === "number") out.maximum = node.maximum;
  // Exclusive bounds (numeric since draft 6) are not in the subset: exact for integers, the closed bound otherwise.
  const integer = out.type === "integer";
  if (typeof node.exclusiveMinimum === "number") tighten(out, "minimum", integer ? Math.floor(node.exclusiveMinimum) + 1 : node.exclusiveMinimum, Math.max);
  if (typeof node.exclusiveMaximum === "number") tighten(out, "maximum", integer ? Math.ceil(node.exclusiveMaximum) - 1 : node.exclusiveMaximum, Math.min);
  if (typeof node.pattern === "string") out.pattern = node.pattern;
  if (typeof node.format === "string") {
    if (FORMATS[String(out.type)]?.has(node.format)) out.format = node.format;
    else appendDescription(out, `Format: ${node.format}.`);
  }

  // `const` is a one-value enum. Gemini enums are strings; other values are described instead.
  const values = "const" in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (values) applyEnum(out, values);

  // allOf: every member must hold, so their constraints are merged into this schema.
  if (Array.isArray(node.allOf)) for (const member of node.allOf) mergeInto(out, deeper(member));

  // anyOf/oneOf (oneOf's exclusivity cannot be expressed): null members become nullable.
  const union = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (union)
    applyUnion(
      out,
      union.map((member) => deeper(member)),
    );
  if (types.length > 1)
    applyUnion(
      out,
      types.map((type) => branchFor(type, out)),
    );

  if (out.type === undefined && out.anyOf === undefined) {
    if (out.properties !== undefined) out.type = "object";
    else if (out.items !== undefined) out.type = "array";
    else if (Array.isArray(out.enum)) out.type = "string";
  }
  tidy(out);
  if ("default" in node && defaultFits(node.default, out)) out.default = node.default;
  return out;
}

function applyEnum(out: JsonSchema, values: unknown[]): void {
  if (values.includes(null)) out.nullable = true;
  const present = [...new Set(values.filter((v) => v !== null))];
  if (present.length === 0) return;
  if (present.every((v) => typeof v === "string") && (out.type === undefined || out.type === "string")) {
    out.enum = present;
  } else {
    // Still give the model the type when the values agree on one (`const: 3` → integer).
    if (out.type === undefined) {
      const kinds = new Set(present.map((v) => (Number.isInteger(v) ? "integer" : typeof v)));
      const [kind] = kinds;
      if (kinds.size === 1 && kind && TYPES.has(kind)) out.type = kind;
    }
    appendDescription(out, `Allowed values: ${present.map((v) => JSON.stringify(v)).join(", ")}.`);
  }
}

function applyUnion(out: JsonSchema, members: JsonSchema[]): void {
  const isNull = (m: JsonSchema) => m.nullable === true && Object.keys(m).every((k) => k === "nullable" || k === "description" || k === "title");
  if (members.some(isNull)) out.nullable = true;
  const rest = members.filter((m) => !isNull(m));
  for (const m of rest) {
    if (m.nullable === true) out.nullable = true;
    delete m.nullable;
  }
  // A member without any shape accepts every value, so the union constrains nothing
  // (typical: `anyOf: [{required: ["a"]}, {required: ["b"]}]`, which has no Gemini form).
  if (rest.length === 0 || rest.some((m) => Object.keys(m).every((k) => k === "description" || k === "title" || k === "default"))) return;
  const parentType = typeof out.type === "string" ? out.type : undefined;
  const branches = rest.map((m) => {
    const branch: JsonSchema = { ...m };
    // Gemini rejects union members without a type; the parent's constraints hold in every branch.
    if (branch.type === undefined && branch.anyOf === undefined && parentType) branch.type = parentType;
    if (parentType && branch.type === parentType) mergeInto(branch, branchFor(parentType, out));
    tidy(branch);
    return branch;
  });
  const merged = branches.length === 1 ? branches[0] : collapseEnums(branches);
  if (merged) {
    const description = out.description;
    mergeInto(out, merged);
    if (typeof description === "string") out.description = description;
    return;
  }
  delete out.type;
  for (const keyword of Object.values(TYPE_KEYWORDS).flat()) delete out[keyword];
  out.anyOf = branches;
}

/** `anyOf` of string consts/enums (how zod and pydantic write enums) → one enum, which models follow better. */
function collapseEnums(members: JsonSchema[]): JsonSchema | undefined {
  const only = members.every(
    (m) => m.type === "string" && Array.isArray(m.enum) && Object.keys(m).every((k) => k === "type" || k === "enum" || k === "description" || k === "title"),
  );
  if (!only) return undefined;
  return { type: "string", enum: [...new Set(members.flatMap((m) => m.enum as unknown[]))] };
}

function branchFor(type: string, out: JsonSchema): JsonSchema {
  const branch: JsonSchema = { type };
  for (const keyword of TYPE_KEYWORDS[type] ?? []) if (out[keyword] !== undefined) branch[keyword] = out[keyword];
  return branch;
}

function unionOf(members: JsonSchema[]): JsonSchema {
  const distinct = [...new Map(members.map((m) => [JSON.stringify(m), m])).values()];
  if (distinct.length === 0) return {};
  if (distinct.length === 1) return distinct[0] ?? {};
  return { anyOf: distinct };
}

/** allOf-style merge: properties and required are unioned; for other keywords the first value wins. */
function mergeInto(target: JsonSchema, source: JsonSchema): JsonSchema {
  for (const [key, value] of Object.entries(source)) {
    if (key === "properties" && isRecord(value)) target.properties = { ...(isRecord(target.properties) ? target.properties : {}), ...value };
    else if (key === "required" && Array.isArray(value)) target.required = [...new Set([...(Array.isArray(target.required) ? target.required : []), ...value])];
    else if (key === "description" && typeof value === "string" && typeof target.description === "string" && target.description !== value)
      appendDescription(target, value);
    else if (target[key] === undefined) target[key] = value;
  }
  return target;
}

function tighten(out: JsonSchema, key: "minimum" | "maximum", value: number, pick: (a: number, b: number) => number): void {
  out[key] = typeof out[key] === "number" ? pick(out[key] as number, value) : value;
}

function appendDescription(out: JsonSchema, text: string): void {
  out.description = typeof out.description === "string" && out.description.length > 0 ? `${out.description} ${text}` : text;
}

/** Final consistency: `required` lists only declared properties; keywords stay on the type they belong to. */
function tidy(out: JsonSchema): void {
  const names = isRecord(out.properties) ? new Set(Object.keys(out.properties)) : undefined;
  if (Array.isArray(out.required)) {
    const required = names ? out.required.filter((r) => typeof r === "string" && names.has(r)) : [];
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  if (Array.isArray(out.propertyOrdering)) {
    const ordering = names ? out.propertyOrdering.filter((p) => typeof p === "string" && names.has(p)) : [];
    if (ordering.length > 0) out.propertyOrdering = ordering;
    else delete out.propertyOrdering;
  }
  if (typeof out.type === "string") {
    const own = new Set(TYPE_KEYWORDS[out.type] ?? []);
    for (const [type, keywords] of Object.entries(TYPE_KEYWORDS)) {
      if (type === out.type) continue;
      for (const keyword of keywords) if (!own.has(keyword)) delete out[keyword];
    }
  }
}

function defaultFits(value: unknown, schema: JsonSchema): boolean {
  if (value === null) return schema.nullable === true;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  switch (schema.type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    default:
      return false; // Untyped or union: a default cannot be checked, so it is left out.
  }
}

/** MCP says tool inputs are objects; Gemini insists. Object unions are flattened into one optional-field object. */
function asRootObject(schema: JsonSchema): JsonSchema {
  const root: JsonSchema = { ...schema };
  delete root.nullable;
  delete root.default;
  if (root.type !== "object" && Array.isArray(root.anyOf)) {
    const objects = (root.anyOf as JsonSchema[]).filter((m) => m.type === "object");
    const requiredSets = objects.map((m) => new Set(Array.isArray(m.required) ? (m.required as string[]) : []));
    // fromEntries, not Object.assign: a property named `__proto__` must stay a property.
    root.properties = Object.fromEntries(objects.flatMap((m) => (isRecord(m.properties) ? Object.entries(m.properties) : [])));
    const always = [...(requiredSets[0] ?? [])].filter((name) => requiredSets.every((set) => set.has(name)));
    if (always.length > 0) root.required = always;
    delete root.anyOf;
    appendDescription(root, "(Arguments: the fields of one of several accepted shapes.)");
  }
  root.type = "object";
  if (!isRecord(root.properties)) root.properties = {};
  tidy(root);
  return root;
}
