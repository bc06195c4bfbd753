// What the conformance fixture (fixture-server.ts) offers, as data: the names and
// answers the suite's server scenarios ask for (tools-*, resources-*, prompts-*,
// json-schema-2020-12, elicitation-*), kept apart from the transport code.
import type { PromptMessage, Tool } from "@modelcontextprotocol/sdk/types.js";

/** A 1×1 red PNG. */
export const IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const empty = { type: "object" as const, properties: {} };
const described = (name: string, description: string, inputSchema: Tool["inputSchema"] = empty): Tool => ({ name, description, inputSchema });

// SEP-1613/SEP-2106: the 2020-12 keywords a server must hand out unchanged.
const JSON_SCHEMA_2020_12: Tool["inputSchema"] = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, the keywords this scenario checks
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

export const fixtureTools: Tool[] = [
  described("test_simple_text", "Tests simple text content response"),
  described("test_image_content", "Tests image content response"),
  described("test_audio_content", "Tests audio content response"),
  described("test_embedded_resource", "Tests embedded resource content response"),
  described("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)"),
  described("test_tool_with_logging", "Tests tool that emits log messages during execution"),
  described("test_tool_with_progress", "Tests tool that reports progress notifications"),
  described("test_error_handling", "Tests error response handling"),
  described("test_reconnection", "Closes the call's SSE stream mid-call; the result comes after the client reconnects (SEP-1699)"),
  described("test_sampling", "Tests server-initiated sampling (LLM completion request)", {
    type: "object",
    properties: { prompt: { type: "string", description: "The prompt to send to the LLM" } },
    required: ["prompt"],
  }),
  described("test_elicitation", "Tests server-initiated elicitation (user input request)", {
    type: "object",
    properties: { message: { type: "string", description: "The message to show the user" } },
    required: ["message"],
  }),
  described("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034"),
  described("test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330"),
  // SEP-2243: a parameter the client mirrors into an `Mcp-Param-Region` header, which a 2026
  // server checks against the body (http-custom-header-server-validation has nothing to test without one).
  described("test_custom_header", "Echoes a region that clients also send as a header", {
    type: "object",
    properties: { region: { type: "string", description: "A region name", "x-mcp-header": "Region" } },
    required: ["region"],
  }),
  described("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)", JSON_SCHEMA_2020_12),
];

export const RESOURCES = [
  {
    uri: "test://static-text",
    name: "static-text",
    title: "Static Text Resource",
    description: "A static text resource for testing",
    mimeType: "text/plain",
    contents: { text: "This is the content of the static text resource." },
  },
  {
    uri: "test://static-binary",
    name: "static-binary",
    title: "Static Binary Resource",
    description: "A static binary resource (image) for testing",
    mimeType: "image/png",
    contents: { blob: IMAGE },
  },
  {
    uri: "test://watched-resource",
    name: "watched-resource",
    title: "Watched Resource",
    description: "A resource clients may subscribe to",
    mimeType: "text/plain",
    contents: { text: "Watched resource content" },
  },
];

export const TEMPLATE = {
  uriTemplate: "test://template/{id}/data",
  name: "template",
  title: "Resource Template",
  description: "A resource template with parameter substitution",
  mimeType: "application/json",
};

export const PROMPTS = [
  { name: "test_simple_prompt", title: "Simple Test Prompt", description: "A simple prompt without arguments" },
  {
    name: "test_prompt_with_arguments",
    title: "Prompt With Arguments",
    description: "A prompt with required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    title: "Prompt With Embedded Resource",
    description: "A prompt that includes an embedded resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  { name: "test_prompt_with_image", title: "Prompt With Image", description: "A prompt that includes image content" },
];

export function promptMessages(name: string, args: Record<string, string>): PromptMessage[] {
  switch (name) {
    case "test_simple_prompt":
      return [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }];
    case "test_prompt_with_arguments":
      return [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }];
    case "test_prompt_with_embedded_resource":
      return [
        {
          role: "user",
          content: { type: "resource", resource: { uri: args.resourceUri ?? "", mimeType: "text/plain", text: "Embedded resource content for testing." } },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ];
    case "test_prompt_with_image":
      return [
        { role: "user", content: { type: "image", data: IMAGE, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } },
      ];
    default:
      throw new Error(`Unknown prompt: ${name}`);
  }
}
