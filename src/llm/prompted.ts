// The `prompted` tool mode, for models without native function calling: tools
// are described in the system prompt and the model answers with ```tool fenced
// JSON blocks. Text outside blocks streams through; blocks are parsed with zod.
// A malformed block or an unknown tool name is shown back to the model with the
// expected format, at a lower temperature, up to `maxAttempts` times.
import { z } from "zod";
import { callIdGenerator } from "./call-ids";
import { FencedBlockSplitter, type Segment } from "./fenced-blocks";
import { describeMediaAsText, userPartsAsText } from "./media";
import { LlmError, type ChatMessage, type LlmEvent, type LlmProvider, type LlmRequest, type ToolCallRequest, type ToolDeclaration } from "./provider";

export interface PromptedOptions {
  /** Attempts per request, the first included (default 3). */
  maxAttempts?: number;
  /** Temperature decrease per repair attempt (default 0.1). */
  temperatureStep?: number;
  /** Starting temperature when the request sets none (default 0.7): repairs need a number to lower. */
  defaultTemperature?: number;
}

export interface PromptedStats {
  requests: number;
  /** Requests whose first answer had no malformed block and no unknown tool. */
  firstAttemptSuccesses: number;
}

const BlockSchema = z.object({
  tool: z.string({ error: '"tool" must be the tool name as a string' }).min(1, { error: '"tool" must not be empty' }),
  arguments: z.record(z.string(), z.unknown(), { error: '"arguments" must be a JSON object' }).optional(),
});

const FORMAT = '```tool\n{"tool": "<name>", "arguments": {...}}\n```';

export class PromptedProvider implements LlmProvider {
  readonly name = "prompted";
  private readonly maxAttempts: number;
  private readonly step: number;
  private readonly defaultTemperature: number;
  private readonly counters: PromptedStats = { requests: 0, firstAttemptSuccesses: 0 };

  constructor(
    private readonly inner: LlmProvider,
    options: PromptedOptions = {},
  ) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.step = options.temperatureStep ?? 0.1;
    this.defaultTemperature = options.defaultTemperature ?? 0.7;
  }

  get model(): string {
    return this.inner.model;
  }

  stats(): PromptedStats {
    return { ...this.counters };
  }

  async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
    this.counters.requests++;
    const known = new Map(request.tools.map((t) => [t.name, t]));
    const system = request.tools.length > 0 ? `${request.system}\n\n${toolInstructions(request.tools)}`.trim() : request.system;
    const history = toPlainMessages(request.messages);
    const start = request.temperature ?? this.defaultTemperature;
    const nextId = callIdGenerator(request.messages);
    const usage = { inputTokens: 0, outputTokens: 0, seen: false };
    const repairs: ChatMessage[] = [];

    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const temperature = Math.max(0, Math.round((start - this.step * attempt) * 100) / 100);
      const splitter = new FencedBlockSplitter();
      const calls: { name: string; arguments: Record<string, unknown> }[] = [];
      const errors: string[] = [];
      let blocks = 0;
      let raw = "";
      let finishReason = "STOP";
      let stopSequence: string | undefined;
      const take = (segments: Segment[]): LlmEvent[] => {
        const text: LlmEvent[] = [];
        for (const segment of segments) {
          if (segment.kind === "text") text.push({ type: "text", delta: segment.text });
          else if (request.tools.length > 0) readBlock(segment, ++blocks, known, calls, errors);
          else text.push({ type: "text", delta: `\`\`\`tool${segment.body}${segment.unterminated ? "" : "```"}` }); // No tools offered: not a call.
        }
        return text;
      };

      const { maxOutputTokens, stopSequences, model, signal } = request;
      const inner = this.inner.stream({ system, messages: [...history, ...repairs], tools: [], temperature, maxOutputTokens, stopSequences, model, signal });
      for await (const event of inner) {
        if (event.type === "text") {
          raw += event.delta;
          yield* take(splitter.push(event.delta));
        } else if (event.type === "usage") {
          usage.inputTokens += event.inputTokens;
          usage.outputTokens += event.outputTokens;
          usage.seen = true;
        } else if (event.type === "done") {
          finishReason = event.finishReason;
          stopSequence = event.stopSequence;
        }
        // A tool_call from the inner provider cannot happen: it is called without tools.
      }
      yield* take(splitter.end());

      if (errors.length === 0) {
        if (attempt === 0) this.counters.firstAttemptSuccesses++;
        for (const call of calls) yield { type: "tool_call", call: { id: nextId(), ...call } satisfies ToolCallRequest };
        if (usage.seen) yield { type: "usage", inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
        yield { type: "done", finishReason, ...(stopSequence !== undefined ? { stopSequence } : {}) };
        return;
      }
      if (attempt === this.maxAttempts - 1) {
        throw new LlmError(`The model did not write a usable tool call in ${this.maxAttempts} attempts: ${errors.join("; ")}`);
      }
      repairs.push({ role: "assistant", text: raw }, { role: "user", text: repairMessage(errors, calls, known) });
    }
  }
}

function readBlock(
  segment: Extract<Segment, { kind: "block" }>,
  n: number,
  known: Map<string, ToolDeclaration>,
  calls: { name: string; arguments: Record<string, unknown> }[],
  errors: string[],
): void {
  // A missing closing fence is forgiven when the JSON itself is complete.
  const body = segment.body.trim();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    const closed = segment.unterminated ? " (and the block was not closed with ```)" : "";
    errors.push(`block ${n} is not valid JSON${closed}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const parsed = BlockSchema.safeParse(json);
  if (!parsed.success) {
    errors.push(`block ${n}: ${parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ")}`);
    return;
  }
  if (!known.has(parsed.data.tool)) {
    errors.push(`block ${n} names an unknown tool "${parsed.data.tool}" (available: ${[...known.keys()].join(", ")})`);
    return;
  }
  calls.push({ name: parsed.data.tool, arguments: parsed.data.arguments ?? {} });
}

function describeTool(tool: ToolDeclaration): string {
  return `### ${tool.name}\n${tool.description || "(no description)"}\nArguments (JSON Schema): ${JSON.stringify(tool.parameters)}`;
}

/** The system-prompt section that replaces native tool declarations. */
export function toolInstructions(tools: ToolDeclaration[]): string {
  return [
    "## Tools",
    "You can call the tools below. To call one, write exactly one fenced block per call, in this form:",
    FORMAT,
    'Put nothing in a block but that JSON object; "arguments" must match the tool\'s schema. Several blocks are allowed in one answer. ' +
      "Only use the tool names listed here. Tool results come back in the next message; do not write results yourself.",
    ...tools.map(describeTool),
  ].join("\n\n");
}

function repairMessage(errors: string[], calls: { name: string }[], known: Map<string, ToolDeclaration>): string {
  // Schemas of the tools the model was reaching for; all of them when it named none we know.
  const named = [...new Set(calls.map((c) => c.name))].map((name) => known.get(name)).filter((t): t is ToolDeclaration => t !== undefined);
  const schemas = (named.length > 0 ? named : [...known.values()]).map(describeTool);
  return [
    "Your previous answer had tool blocks I could not use, so no tool was run:",
    errors.map((e) => `- ${e}`).join("\n"),
    `Answer again with every tool call you intend (the valid ones too), each as exactly one block:\n${FORMAT}`,
    ...schemas,
  ].join("\n\n");
}

/** History for a model without native tools: calls become their fenced blocks, results become user text. */
export function toPlainMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    if (message.role === "user") return message.parts?.length ? { role: "user", text: userPartsAsText(message.text, message.parts) } : message;
    if (message.role === "assistant") {
      const blocks = (message.toolCalls ?? []).map((call) => `\`\`\`tool\n${JSON.stringify({ tool: call.name, arguments: call.arguments })}\n\`\`\``);
      return { role: "assistant", text: [message.text, ...blocks].filter(Boolean).join("\n\n") };
    }
    // Media are described, never sent: the wrapped model is asked for text only.
    const lines = message.results.map(
      (r) => `Result of ${r.name} (${r.id}): ${r.error !== undefined ? `error: ${r.error}` : JSON.stringify(r.result ?? null)}${describeMediaAsText(r)}`,
    );
    return { role: "user", text: lines.join("\n\n") };
  });
}
