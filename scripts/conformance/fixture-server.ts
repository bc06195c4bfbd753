// The server the conformance server scenarios are run against, natively and behind the
// local bridge. The suite's own fixture (its repository's everything-server) is not in
// the npm package, so this is a stand-in with the surface its scenarios call (tool,
// resource and prompt names and answers), built on the SDK the bridge's children are
// written with: @modelcontextprotocol/sdk 1.x, so it speaks the 2025 revisions only —
// the "2025 child" of issue 35. `--stdio` serves stdin/stdout (for the bridge);
// `--port N` serves Streamable HTTP at /mcp with sessions, resumable streams and
// DNS-rebinding protection, as the SDK offers them (the native column).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ElicitResultSchema,
  CreateMessageResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { call2026, extraPrompt, extras, extraTool, prompt2026, prompt2026Messages, tools2026 } from "./fixture-2026";
import { fixtureTools, IMAGE, PROMPTS, RESOURCES, TEMPLATE, promptMessages } from "./fixture-surface";

const AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));
const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** One server per session (HTTP) or per process (stdio). */
function fixture(transports: Map<string, StreamableHTTPServerTransport>): Server {
  const server = new Server(
    { name: "edgehost-conformance-fixture", version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...fixtureTools, ...tools2026, ...(extras.tool ? [extraTool] : [])] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    const modern = await call2026(request.params.name, extra);
    if (modern) return modern;
    const log = (data: string) => extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });
    switch (request.params.name) {
      case "test_simple_text":
        return text("This is a simple text response for testing.");
      case "test_image_content":
        return { content: [{ type: "image", data: IMAGE, mimeType: "image/png" }] };
      case "test_audio_content":
        return { content: [{ type: "audio", data: AUDIO, mimeType: "audio/wav" }] };
      case "test_embedded_resource":
        return {
          content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }],
        };
      case "test_multiple_content_types":
        return {
          content: [
            { type: "text", text: "Multiple content types test:" },
            { type: "image", data: IMAGE, mimeType: "image/png" },
            {
              type: "resource",
              resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) },
            },
          ],
        };
      case "test_tool_with_logging":
        for (const line of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
          await log(line);
          await pause(50);
        }
        return text("Tool with logging executed successfully");
      case "test_tool_with_progress": {
        const progressToken = request.params._meta?.progressToken ?? 0;
        for (const progress of [0, 50, 100]) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
          });
          await pause(50);
        }
        return text(String(progressToken));
      }
      case "test_error_handling":
        return { isError: true, content: [{ type: "text", text: "This tool intentionally returns an error for testing" }] };
      case "test_reconnection":
        // Closes the call's SSE stream so the client must reconnect (SEP-1699); stdio has none.
        if (extra.sessionId) transports.get(extra.sessionId)?.closeSSEStream(extra.requestId);
        await pause(100);
        return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.");
      case "test_sampling": {
        const result = await extra.sendRequest(
          { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }], maxTokens: 100 } },
          CreateMessageResultSchema,
        );
        const content = result.content as { text?: string };
        return text(`LLM response: ${content.text ?? "No response"}`);
      }
      case "test_elicitation":
      case "test_elicitation_sep1034_defaults":
      case "test_elicitation_sep1330_enums": {
        const params = fixtureElicitation(request.params.name, String(args.message ?? ""));
        const result = await extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema);
        const label = request.params.name === "test_elicitation" ? "User response" : "Elicitation completed";
        return text(`${label}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      }
      case "test_custom_header":
        return text(`region=${String(args.region)}`);
      case "json_schema_2020_12_tool":
        return text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`);
      default:
        throw new McpError(-32602, `Unknown tool: ${request.params.name}`);
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES.map(({ contents: _, ...r }) => r) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const uri = request.params.uri;
    const known = RESOURCES.find((r) => r.uri === uri);
    if (known) return { contents: [{ uri, mimeType: known.mimeType, ...known.contents }] };
    const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
    if (id) return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
    throw new McpError(-32002, `Resource not found: ${uri}`);
  });
  server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...PROMPTS, prompt2026, ...(extras.prompt ? [extraPrompt] : [])] }));
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
    request.params.name === prompt2026.name ? prompt2026Messages(extra) : { messages: promptMessages(request.params.name, request.params.arguments ?? {}) },
  );
  server.setRequestHandler(SetLevelRequestSchema, () => ({}));
  server.setRequestHandler(CompleteRequestSchema, () => ({ completion: { values: [], total: 0, hasMore: false } }));
  return server;
}

function fixtureElicitation(tool: string, message: string) {
  if (tool === "test_elicitation") {
    return {
      message,
      requestedSchema: {
        type: "object" as const,
        properties: { response: { type: "string" as const, description: "User's response" } },
        required: ["response"],
      },
    };
  }
  if (tool === "test_elicitation_sep1034_defaults") {
    return {
      message: "Please review and update the form fields with defaults",
      requestedSchema: {
        type: "object" as const,
        properties: {
          name: { type: "string" as const, description: "User name", default: "John Doe" },
          age: { type: "integer" as const, description: "User age", default: 30 },
          score: { type: "number" as const, description: "User score", default: 95.5 },
          status: { type: "string" as const, description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean" as const, description: "Verification status", default: true },
        },
        required: [],
      },
    };
  }
  const titled = (prefix: string) => [1, 2, 3].map((n) => ({ const: `value${n}`, title: `${["First", "Second", "Third"][n - 1]} ${prefix}` }));
  return {
    message: "Please select options from the enum fields",
    requestedSchema: {
      type: "object" as const,
      properties: {
        untitledSingle: { type: "string" as const, description: "Select one option", enum: ["option1", "option2", "option3"] },
        titledSingle: { type: "string" as const, description: "Select one option with titles", oneOf: titled("Option") },
        legacyEnum: {
          type: "string" as const,
          description: "Select one option (legacy)",
          enum: ["opt1", "opt2", "opt3"],
          enumNames: ["Option One", "Option Two", "Option Three"],
        },
        untitledMulti: {
          type: "array" as const,
          description: "Select multiple options",
          minItems: 1,
          maxItems: 3,
          items: { type: "string" as const, enum: ["option1", "option2", "option3"] },
        },
        titledMulti: {
          type: "array" as const,
          description: "Select multiple options with titles",
          minItems: 1,
          maxItems: 3,
          items: { anyOf: titled("Choice") },
        },
      },
      required: [],
    },
  };
}

async function serveHttp(port: number): Promise<void> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    if (!req.url?.startsWith("/mcp")) return void res.writeHead(404).end();
    const id = req.headers["mcp-session-id"];
    const existing = typeof id === "string" ? transports.get(id) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (id)
      return void res
        .writeHead(404, { "content-type": "application/json" })
        .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
    if (req.method !== "POST") return void res.writeHead(400).end("Invalid or missing session ID");
    const bound = http.address();
    const actual = typeof bound === "object" && bound ? bound.port : port;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      retryInterval: 5000,
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${actual}`, `localhost:${actual}`, "127.0.0.1", "localhost"],
      onsessioninitialized: (sid) => void transports.set(sid, transport),
      onsessionclosed: (sid) => void transports.delete(sid),
    });
    await fixture(transports).connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(port, "127.0.0.1", () => {
    const bound = http.address();
    console.log(`fixture listening on http://127.0.0.1:${typeof bound === "object" && bound ? bound.port : port}/mcp`);
  });
}

const argv = process.argv.slice(2);
if (argv.includes("--stdio")) await fixture(new Map()).connect(new StdioServerTransport());
else await serveHttp(Number(argv[argv.indexOf("--port") + 1] ?? 0) || 0);
