// Per-server guidance for the system prompt (seed 000 §2.4): the server's
// `instructions` from initialize, then its own `tool-descriptions` prompt when it
// has one. No list of its tools: the request's declarations already describe each
// tool, and a second list cost every model call as much again (issue 27).
import type { GetPromptResult } from "@modelcontextprotocol/client";
import type { ServerConnection } from "./connection";
import { errorMessage } from "../shared/logger";

export const GUIDE_PROMPT = "tool-descriptions";
const MAX_GUIDE_CHARS = 4_000;

export interface ServerGuide {
  server: string;
  source: "prompt" | "generated";
  text: string;
}

export async function serverGuide(connection: ServerConnection, getPrompt: (name: string) => Promise<GetPromptResult>): Promise<ServerGuide> {
  const parts: string[] = [];
  if (connection.instructions) parts.push(connection.instructions.trim());
  let source: ServerGuide["source"] = "generated";
  if (connection.prompts.some((p) => p.name === GUIDE_PROMPT)) {
    try {
      const prompt = await getPrompt(GUIDE_PROMPT);
      const text = prompt.messages
        .map((m) => (m.content.type === "text" ? m.content.text : ""))
        .filter(Boolean)
        .join("\n");
      if (text) {
        parts.push(text.trim());
        source = "prompt";
      }
    } catch (error) {
      parts.push(`(its ${GUIDE_PROMPT} prompt failed: ${errorMessage(error)})`);
    }
  }
  const text = parts.join("\n\n");
  return { server: connection.name, source, text: text.length > MAX_GUIDE_CHARS ? `${text.slice(0, MAX_GUIDE_CHARS)}…` : text };
}
