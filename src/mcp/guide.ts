// Per-server guidance for the system prompt (seed 000 §2.4): a server's own
// `tool-descriptions` prompt when it has one, else a short guide built from its
// tool list. Server `instructions` from initialize come first either way.
import type { GetPromptResult } from "@modelcontextprotocol/client";
import { visibleTo } from "./app-ui";
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
  if (source === "generated") parts.push(generatedGuide(connection));
  const text = parts.join("\n\n");
  return { server: connection.name, source, text: text.length > MAX_GUIDE_CHARS ? `${text.slice(0, MAX_GUIDE_CHARS)}…` : text };
}

function generatedGuide(connection: ServerConnection): string {
  const lines = [`Server "${connection.name}" offers these tools:`];
  for (const tool of connection.tools.values()) {
    // A tool only its MCP App calls is not the model's (app-ui.ts).
    if (!visibleTo(tool.uiVisibility, "model")) continue;
    const params = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
    const summary = (tool.description ?? "").split("\n")[0]?.slice(0, 200) ?? "";
    lines.push(`- ${tool.qualifiedName}(${params.join(", ")})${summary ? `: ${summary}` : ""}`);
  }
  return lines.join("\n");
}
