// The system prompt of a turn: base rules, tool-call rules and each server's
// guidance (its `instructions` and `tool-descriptions` prompt). The tools
// themselves are described once, in the request's declarations: listing them here
// too doubled what every model call carried (85,000 characters at 504 tools).
import type { ToolView } from "../mcp/capabilities";
import type { ServerGuide } from "../mcp/guide";

const BASE = `You are a helpful assistant in a chat. Answer in Markdown. Be concise and accurate.`;

const TOOL_RULES = `You can call tools. Rules:
- Call a tool only when it helps answer the user; never invent tool names or arguments.
- Use the exact function names given. Arguments must match the tool's JSON schema.
- Independent calls may be made together in one step; dependent calls one after another.
- If a tool returns an error, read it, fix the call if you can, or explain the problem to the user.
- Some calls need the user's approval; a denied call must not be retried in the same way.`;

export interface PromptInput {
  tools: ToolView[];
  guides: ServerGuide[];
  /** Extra instructions from the deployment (SYSTEM_PROMPT). */
  extra?: string;
  /**
   * The person's own instructions and their chat's preset (src/session/personal-prompt.ts):
   * last, after the operator's words, the tool rules and the servers' guidance, so they add
   * to those and never stand in their place.
   */
  personal?: string;
  /** Characters of server guidance in all (default GUIDE_BUDGET_CHARS). */
  guideBudget?: number;
  /** Only some tools are declared; `search_tools` finds the rest (tool-selection.ts). */
  searchable?: boolean;
}

const SEARCH_RULE = `Only some of the available tools are declared. When none of them fits, call search_tools with keywords of what you need, then call what it found.`;

export const GUIDE_BUDGET_CHARS = 8_000;

export function buildSystemPrompt(input: PromptInput): string {
  const parts = [BASE];
  if (input.extra) parts.push(input.extra.trim());
  if (input.tools.length > 0) {
    parts.push(TOOL_RULES);
    if (input.searchable) parts.push(SEARCH_RULE);
    const servers = new Set(input.tools.map((t) => t.server));
    // What servers say about themselves (their `instructions`, then their tool-descriptions
    // prompt or a guide generated from their tools), servers with their own words first,
    // within one budget so a verbose server cannot crowd out the conversation.
    const guides = input.guides.filter((g) => servers.has(g.server) && g.text).sort((a, b) => (a.source === b.source ? 0 : a.source === "prompt" ? -1 : 1));
    let left = input.guideBudget ?? GUIDE_BUDGET_CHARS;
    for (const guide of guides) {
      if (left <= 0) break;
      const text = guide.text.length > left ? `${guide.text.slice(0, left)}…` : guide.text;
      left -= text.length;
      parts.push(`Guidance from the "${guide.server}" server:\n${text}`);
    }
  } else {
    parts.push("No tools are available in this conversation.");
  }
  if (input.personal) parts.push(input.personal.trim());
  return parts.join("\n\n");
}
