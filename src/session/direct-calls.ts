// What a session answers to the HTTP API: its servers with their capabilities,
// and direct tool calls from the page's tool console (same argument validation
// and approval policy as a model's call; recorded in that session's history).
// Outcomes are typed errors; the HTTP layer picks the status code.
import type { Approvals } from "../approval/approvals";
import type { ApprovalDecision } from "../orchestrator/transcript";
import { failedEnd } from "../orchestrator/turn";
import type { AuditedCall } from "./audit-sink";
import type { DirectCallOutcome, ServerInfo, ToolCallResponse } from "./answers";
import { EdgehostError } from "../shared/errors";
import type { NewEntry } from "./history";
import type { SessionMcp } from "./mcp/session-mcp";

export async function serversInfo(mcp: SessionMcp, approvals: Approvals): Promise<ServerInfo[]> {
  await mcp.ensureConnected();
  const capabilities = new Map(
    mcp
      .host()
      .listCapabilities()
      .map((c) => [c.name, c]),
  );
  const configured = new Map(mcp.configuredServers().map((s) => [s.name, s]));
  return mcp.status().map((status) => {
    const caps = capabilities.get(status.name);
    return {
      name: status.name,
      transport: caps?.transport ?? configured.get(status.name)?.transport ?? "unknown",
      state: status.state,
      enabled: status.enabled,
      toolCount: status.toolCount,
      lastError: status.lastError,
      alwaysAllow: configured.get(status.name)?.alwaysAllow ?? [],
      tools: (caps?.tools ?? []).map((t) => ({
        name: t.name,
        qualifiedName: t.qualifiedName,
        functionName: t.functionName,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        uiResourceUri: t.uiResourceUri,
        needsApproval: approvals.needsApproval(t.server, t.name),
      })),
      prompts: (caps?.prompts ?? []).map((p) => ({ name: p.name, description: p.description })),
      resources: (caps?.resources ?? []).map((r) => ({ uri: r.uri, name: r.name })),
    };
  });
}

export async function callDirect(
  mcp: SessionMcp,
  approvals: Approvals,
  record: (entry: NewEntry) => void,
  name: string,
  args: Record<string, unknown>,
  approved: boolean,
  audit?: { decision: ApprovalDecision; add: (call: AuditedCall) => void },
): Promise<DirectCallOutcome> {
  await mcp.ensureConnected();
  const tool = mcp
    .host()
    .tools()
    .find((t) => t.qualifiedName === name);
  // The owner's rules for all chats as the account has them now (a console call has no turn that brought them).
  if (tool && !approved) await approvals.mine.refresh();
  if (tool && approvals.needsApproval(tool.server, tool.name, args) && !approved) {
    return { ok: false, error: { code: "approval_required", message: `${name} needs approval: send "approved": true once the user confirmed` } };
  }
  const callId = crypto.randomUUID();
  const [server = "", toolName = name] = name.split(/\.(.*)/s);
  record({ turnId: null, kind: "tool_call", callId, server, tool: toolName, arguments: args });
  const started = Date.now();
  /** The trail's row, in the same tick as the `tool_result` entry after it: the tool console's person asked. */
  const audited = (end: Pick<AuditedCall, "status" | "result" | "errorCode">) =>
    audit?.add({
      callId,
      server,
      tool: toolName,
      arguments: args,
      decision: audit.decision,
      turnId: null,
      askedBy: { kind: "person" },
      at: started,
      endedAt: Date.now(),
      durationMs: Date.now() - started,
      ...end,
    });
  try {
    const result = await mcp.host().callTool(name, args);
    const durationMs = Date.now() - started;
    audited({ status: result.isError ? "tool_error" : "ok", result });
    record({
      turnId: null,
      kind: "tool_result",
      callId,
      server,
      tool: toolName,
      durationMs,
      ...(result.isError ? { error: "the tool reported an error" } : { result: result.content }),
    });
    // The SDK types structuredContent `unknown` (a later protocol allows any JSON value); on the
    // protocols this host negotiates (2025-11-25 and older) its result schema has checked it is an object.
    const structuredContent = result.structuredContent as Record<string, unknown> | undefined;
    const body: ToolCallResponse = { result: { content: result.content as Record<string, unknown>[], structuredContent, isError: result.isError }, durationMs };
    return { ok: true, body };
  } catch (error) {
    const durationMs = Date.now() - started;
    const publicError = error instanceof EdgehostError ? error.toPublic() : { code: "internal" as const, message: "the tool call failed" };
    audited(failedEnd(error));
    record({ turnId: null, kind: "tool_result", callId, server, tool: toolName, durationMs, error: publicError.message });
    return { ok: false, error: publicError };
  }
}
