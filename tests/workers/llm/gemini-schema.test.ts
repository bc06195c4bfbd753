// sanitizeForGemini on the real tool schemas of server-filesystem and
// brave-search (captured by tests/fixtures/capture-tool-schemas.ts) and on the
// JSON Schema shapes Gemini rejects; plus the round trip into a request body.
import { describe, expect, inject, it } from "vitest";
import { GeminiProvider } from "../../../src/llm/gemini";
import { sanitizeForGemini, type JsonSchema } from "../../../src/llm/gemini-schema";
import { collect, reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";
import captured from "../../fixtures/tool-schemas.json";

interface CapturedTool {
  name: string;
  functionName: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}
const tools: CapturedTool[] = Object.values(captured as Record<string, CapturedTool[]>).flat();

/** Every sub-schema, with its JSON path, for checks that must hold everywhere. */
function* walk(schema: unknown, path = "$"): Generator<[string, JsonSchema]> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
  const node = schema as JsonSchema;
  yield [path, node];
  for (const [name, child] of Object.entries((node.properties as Record<string, unknown>) ?? {})) yield* walk(child, `${path}.properties.${name}`);
  if (node.items) yield* walk(node.items, `${path}.items`);
  for (const [i, child] of ((node.anyOf as unknown[]) ?? []).entries()) yield* walk(child, `${path}.anyOf[${i}]`);
}

describe("sanitizeForGemini", () => {
  it("captured the real servers' tools", () => {
    expect((captured as Record<string, CapturedTool[]>).fs).toHaveLength(14);
    expect((captured as Record<string, CapturedTool[]>).brave).toHaveLength(8);
    expect(JSON.stringify(captured)).toContain("$schema");
  });

  it.each(tools.map((t) => [t.functionName, t] as const))("makes %s acceptable to Gemini", (_name, tool) => {
    const sanitized = sanitizeForGemini(tool.inputSchema);
    expect(sanitized.type).toBe("object");
    expect(sanitized.properties).toBeTypeOf("object");
    for (const [path, node] of walk(sanitized)) {
      const forbidden = ["$schema", "$id", "$ref", "$defs", "definitions", "additionalProperties", "const", "exclusiveMinimum", "exclusiveMaximum", "examples"];
      expect(
        Object.keys(node).filter((k) => forbidden.includes(k)),
        path,
      ).toEqual([]);
      expect(Array.isArray(node.type), `${path}.type`).toBe(false);
      if (Array.isArray(node.required))
        expect(
          node.required.every((r) => Object.hasOwn((node.properties as object) ?? {}, String(r))),
          `${path}.required`,
        ).toBe(true);
      if (Array.isArray(node.enum))
        expect(
          node.enum.every((v) => typeof v === "string"),
          `${path}.enum`,
        ).toBe(true);
    }
    // Nothing the model needs is lost: every original property is still there.
    expect(Object.keys(sanitized.properties as object)).toEqual(Object.keys((tool.inputSchema.properties as object) ?? {}));
  });

  it("turns brave's anyOf of string consts into one enum", () => {
    const local = tools.find((t) => t.functionName === "brave__brave_local_search");
    const units = (sanitizeForGemini(local?.inputSchema).properties as Record<string, JsonSchema>).units;
    expect(units).toMatchObject({ type: "string", enum: ["metric", "imperial"] });
  });

  it("maps nullable types, inlines $ref (cutting recursion) and rewrites keywords Gemini rejects", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "urn:x",
      $comment: "internal",
      type: "object",
      properties: {
        name: { type: ["string", "null"], description: "Name" },
        size: { anyOf: [{ type: "integer", minimum: 0 }, { type: "null" }] },
        mode: { const: "fast" },
        count: { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10 },
        ratio: { type: "number", default: "high" },
        tree: { $ref: "#/$defs/Node" },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, which the Gemini schema must drop
        extra: { type: "object", additionalProperties: { type: "string" }, patternProperties: { "^x": {} }, if: {}, then: {}, else: {} },
        either: { type: ["string", "integer"], minLength: 2, minimum: 1 },
      },
      required: ["name", "ghost"],
      additionalProperties: false,
      $defs: { Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" }, label: { type: "string", format: "uri" } } } },
    };
    expect(sanitizeForGemini(schema)).toEqual({
      type: "object",
      properties: {
        name: { type: "string", nullable: true, description: "Name" },
        size: { type: "integer", minimum: 0, nullable: true },
        mode: { type: "string", enum: ["fast"] },
        count: { type: "integer", minimum: 1, maximum: 9 },
        ratio: { type: "number" },
        tree: {
          type: "object",
          properties: {
            child: {
              type: "object",
              properties: { child: { description: "Same structure as Node." }, label: { type: "string", description: "Format: uri." } },
            },
            label: { type: "string", description: "Format: uri." },
          },
        },
        extra: { type: "object" },
        either: {
          anyOf: [
            { type: "string", minLength: 2 },
            { type: "integer", minimum: 1 },
          ],
        },
      },
      required: ["name"],
    });
  });

  it("never throws, and always answers with an object root", () => {
    const cyclic: Record<string, unknown> = { type: "object", properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("boom");
        },
        get: () => {
          throw new Error("boom");
        },
      },
    );
    for (const input of [
      undefined,
      null,
      42,
      "object",
      [],
      true,
      { type: 7 },
      { $ref: "#/nowhere" },
      { $ref: "http://remote/schema" },
      { type: "string" },
      cyclic,
      hostile,
    ]) {
      const out = sanitizeForGemini(input);
      expect(out.type).toBe("object");
      expect(out.properties).toBeTypeOf("object");
    }
    expect(JSON.stringify(sanitizeForGemini(cyclic)).length).toBeLessThan(2_000_000);
  });

  it("keeps property names exactly, even __proto__", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"a-b.c":{"type":"number"}},"required":["__proto__"]}');
    const out = sanitizeForGemini(schema);
    expect(Object.keys(out.properties as object)).toEqual(["__proto__", "a-b.c"]);
    expect(out.required).toEqual(["__proto__"]);
  });

  it("sends every real tool to Gemini as parametersJsonSchema", async () => {
    const key = uniqueKey("schemas");
    const url = inject("fakeLlmUrl");
    await script(url, key, [reply.text("ok")]);
    const gemini = new GeminiProvider({ apiKey: key, baseUrl: url });
    const declared = tools.map((t) => ({ name: t.functionName, description: t.description ?? "", parameters: t.inputSchema }));
    await collect(gemini.stream({ system: "", messages: [{ role: "user", text: "hi" }], tools: declared }));
    const body = (await requests(url, key))[0]?.body as {
      tools: { functionDeclarations: { name: string; parametersJsonSchema: unknown; parameters?: unknown }[] }[];
    };
    const sent = body.tools[0]?.functionDeclarations ?? [];
    expect(sent.map((d) => d.name)).toEqual(tools.map((t) => t.functionName));
    for (const [i, declaration] of sent.entries()) {
      expect(declaration.parameters).toBeUndefined();
      expect(declaration.parametersJsonSchema).toEqual(sanitizeForGemini(tools[i]?.inputSchema));
    }
    expect(JSON.stringify(body)).not.toMatch(/"\$schema"|additionalProperties/);
  });
});
