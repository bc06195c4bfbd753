// The floor for bench/turn.ts: the work of one tool-call turn done directly from
// Node with no session around it: @google/genai `generateContentStream` to the
// fake model (answers a function call), `tools/call list_directory` on one MCP SDK
// Client kept connected to the bridge over Streamable HTTP (as a session keeps its
// host), then a second `generateContentStream` carrying the function response
// (answers text). Same tools declared as the Worker sends (every tool the server lists).
// Like a chat, each iteration sends the conversation so far (every earlier
// iteration's user text, function call, function response and answer) before its own
// message, so the floor's model requests are the same size as those of a session that
// has run as many turns (the Worker's history budget, 32k tokens, is not reached in a
// bench run). `fresh: true` sends only the new message each time (the pre-fix floor).
import { GoogleGenAI, type Content, type FunctionDeclaration, type Part } from "@google/genai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { withTimeout } from "./procs";

export interface Floor {
  /** One iteration; resolves with its duration in ms (and when the first model call and the tool call ended), throws on anything unexpected. */
  iteration(text: string): Promise<{ ms: number; marks: Record<string, number> }>;
  close(): Promise<void>;
}

const SERVER = "filesystem";
const CALL_TIMEOUT_MS = 30_000;

export async function startFloor(o: { fakeUrl: string; apiKey: string; bridgeUrl: string; token: string; model: string; fresh?: boolean }): Promise<Floor> {
  const conversation: Content[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${o.bridgeUrl}/servers/${SERVER}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${o.token}` } },
  });
  const client = new Client({ name: "bench-turn-floor", version: "1.0.0" }, { capabilities: {} });
  await withTimeout(client.connect(transport), 20_000, "floor MCP connect");
  const { tools } = await client.listTools();
  const declarations: FunctionDeclaration[] = tools.map((t) => ({
    name: `${SERVER}__${t.name}`,
    description: t.description ?? t.name,
    parametersJsonSchema: t.inputSchema,
  }));
  const ai = new GoogleGenAI({ apiKey: o.apiKey, httpOptions: { baseUrl: o.fakeUrl } });
  const config = { systemInstruction: "You are a helpful assistant with tools.", tools: [{ functionDeclarations: declarations }] };

  /** Streams one model call to its end; returns the parts it produced. */
  const generate = async (contents: Content[]): Promise<Part[]> => {
    const parts: Part[] = [];
    const stream = await ai.models.generateContentStream({ model: o.model, contents, config });
    for await (const chunk of stream) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    return parts;
  };

  const iteration = async (text: string): Promise<{ ms: number; marks: Record<string, number> }> => {
    const start = performance.now();
    const contents: Content[] = [...(o.fresh ? [] : conversation), { role: "user", parts: [{ text }] }];
    const first = await generate(contents);
    const call = first.find((p) => p.functionCall)?.functionCall;
    if (!call?.name) throw new Error(`model answered no function call: ${JSON.stringify(first).slice(0, 120)}`);
    const model1 = performance.now() - start;
    const tool = call.name.slice(SERVER.length + 2);
    const result = await client.callTool({ name: tool, arguments: call.args ?? {} }, undefined, { timeout: CALL_TIMEOUT_MS });
    if (result.isError) throw new Error(`${tool} returned isError: ${JSON.stringify(result.content).slice(0, 120)}`);
    const toolDone = performance.now() - start;
    contents.push({ role: "model", parts: [{ functionCall: call }] });
    contents.push({ role: "user", parts: [{ functionResponse: { name: call.name, response: { result: result.content } } }] });
    const second = await generate(contents);
    if (!second.some((p) => p.text)) throw new Error(`second model call answered no text: ${JSON.stringify(second).slice(0, 120)}`);
    if (!o.fresh) conversation.splice(conversation.length, 0, ...contents.slice(conversation.length), { role: "model", parts: second });
    return { ms: performance.now() - start, marks: { model1, toolDone } };
  };

  return {
    iteration: (text) => withTimeout(iteration(text), CALL_TIMEOUT_MS, "floor iteration"),
    close: async () => {
      await withTimeout(transport.terminateSession(), 3_000, "DELETE session").catch(() => undefined);
      await withTimeout(client.close(), 3_000, "close").catch(() => undefined);
    },
  };
}
