// The one place that decides whether a tool call runs without asking, and says why.
// Every caller goes through it: the model's calls (turn-port.ts), the tool console's
// direct calls (direct-calls.ts), MCP Apps' calls (mcp-apps.ts) and the /mcp gateway's
// call gate (gateway/call-gate.ts), so a rule or grant added here applies to all of them.
import type { ApprovalDecision } from "../orchestrator/transcript";

/** A rule that allowed a call: its id and the text the person reads ("… when path is under notes/"). */
export interface RuleMatch {
  id: string;
  text: string;
}

/** What the order consults; each source is read at call time (a revoke applies to the next call). */
export interface DecisionSources {
  /** TOOL_APPROVAL: off means every tool runs without asking. */
  required: boolean;
  /** mcp.json's `alwaysAllow` of a server (the deployment's, not the person's). */
  alwaysAllow: (server: string) => readonly string[];
  /** The chat's "always allow" memory: `{server}.{tool}` names. */
  remembered: () => readonly string[];
  /** Turn grants: the tools a scheduled run may call without asking, for that turn's own calls only (issue 39). */
  granted?: (turnId: string, server: string, tool: string) => boolean;
  /** Argument rules, the chat's before the person's all-chats rules: the first that matches, if any. */
  rules?: (server: string, tool: string, args: Record<string, unknown>) => RuleMatch | undefined;
}

export interface DecisionCall {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** The turn the call belongs to; null for the console, an MCP App or the gateway. */
  turnId: string | null;
}

/** A decision made without asking anyone. */
export type Unasked = ApprovalDecision & { allowed: true; how: Exclude<ApprovalDecision["how"], "asked"> };

/**
 * The order: TOOL_APPROVAL off → mcp.json alwaysAllow → (turn grants) → chat "always allow"
 * → argument rules (chat, then the person's) → ask. Undefined means: ask the person.
 */
export function decide(sources: DecisionSources, call: DecisionCall): Unasked | undefined {
  if (!sources.required) return { allowed: true, how: "policy_off" };
  if (sources.alwaysAllow(call.server).includes(call.tool)) return { allowed: true, how: "config" };
  // A scheduled run's pre-granted tools (issue 39), keyed by call.turnId: the console, apps and the gateway (null turn) never have any.
  if (call.turnId !== null && sources.granted?.(call.turnId, call.server, call.tool)) return { allowed: true, how: "pre_granted" };
  if (sources.remembered().includes(`${call.server}.${call.tool}`)) return { allowed: true, how: "always" };
  const rule = sources.rules?.(call.server, call.tool, call.arguments);
  if (rule) return { allowed: true, how: "rule", ruleId: rule.id, ruleText: rule.text };
  return undefined;
}
