// Compaction: before the model's context would overflow, the oldest turns of the
// conversation are summarized by the model into one entry, which stands in for them
// from then on (the user still sees them, above a marker that opens to the summary).
// `/compact` does the same on demand, for every turn so far. This file decides which
// turns to fold and asks the model; the session stores the entry (src/session/).
import type { ChatMessage, LlmProvider } from "../llm/provider";
import { estimateTokens } from "./prune";
import type { TurnUsage } from "./transcript";

/** Compaction starts when the conversation the model would get passes this share of HISTORY_TOKEN_BUDGET. */
export const COMPACT_AT = 0.75;
/** The newest turns (the one starting included) that stay as they are. */
export const KEEP_TURNS = 2;
/** Longest summary asked for, in output tokens. */
const SUMMARY_MAX_TOKENS = 1_500;

const INSTRUCTION = `Summarize the conversation above for your own later use: it will replace these messages in your context. Keep every fact, decision, name, number, file path, open question and tool result that later turns may need; say which tools were used for what. Write plain Markdown, at most about 400 words, no preamble.`;

/** The token estimate of each turn's messages (prune.ts's estimate). */
export function turnTokens(turns: readonly ChatMessage[][]): number[] {
  return turns.map((messages) => messages.reduce((n, m) => n + estimateTokens(m), 0));
}

/** How many of the oldest turns to fold now (0: none): all but the newest KEEP_TURNS, once the whole passes COMPACT_AT of the budget. */
export function turnsToFold(tokens: readonly number[], budget: number): number {
  const total = tokens.reduce((n, t) => n + t, 0);
  if (total <= budget * COMPACT_AT) return 0;
  return Math.max(0, tokens.length - KEEP_TURNS);
}

/** Added when several people wrote (their messages start with [Name]): the summary stands in for those labels from then on. */
const PEOPLE_INSTRUCTION = `Several people wrote in this conversation; each person's message starts with their name in brackets. Keep who said, asked or decided what, by name.`;

/**
 * Asks the model for the summary of `turns` (after `previous`, an earlier summary they follow).
 * `people`: the note saying who is in a chat several people wrote in (the session's), when its turns are labelled.
 */
export async function summarize(
  provider: LlmProvider,
  turns: ChatMessage[][],
  previous: string | undefined,
  signal: AbortSignal,
  people?: string,
): Promise<{ text: string; usage: TurnUsage }> {
  const usage: TurnUsage = { inputTokens: 0, outputTokens: 0 };
  const system = [
    previous
      ? `You condense conversations. What came before these messages was already summarized as:\n\n${previous}\n\nFold that summary into yours.`
      : "You condense conversations.",
    people,
  ]
    .filter(Boolean)
    .join("\n\n");
  const instruction = people ? `${INSTRUCTION} ${PEOPLE_INSTRUCTION}` : INSTRUCTION;
  const messages: ChatMessage[] = [...turns.flat(), { role: "user", text: instruction }];
  let text = "";
  for await (const event of provider.stream({ system, messages, tools: [], signal, maxOutputTokens: SUMMARY_MAX_TOKENS })) {
    if (event.type === "text") text += event.delta;
    else if (event.type === "usage") {
      usage.inputTokens += event.inputTokens;
      usage.outputTokens += event.outputTokens;
    }
  }
  return { text: text.trim(), usage };
}

/** The summary as the model reads it, in the system prompt. */
export function summarySection(summary: string): string {
  return `Earlier turns of this conversation were summarized to save space:\n\n${summary}`;
}
