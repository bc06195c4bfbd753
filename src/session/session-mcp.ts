// A session's MCP side: its McpHost (connected lazily, again after hibernation),
// the per-session server choice, the approval policy, and the questions servers
// ask the user (sampling, elicitation). The host lives in memory only; what must
// survive (server choice, "always allow") is in SQLite.
import { McpError, ErrorCode, type CreateMessageResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { Settings } from "../env";
import type { LlmProvider } from "../llm/provider";
import type { ToolView } from "../mcp/capabilities";
import type { McpConfig } from "../mcp/config";
import { McpHost } from "../mcp/host";
import { workerTransports } from "../mcp/transports";
import type { HistoryStore, NewEntry } from "./history";
import { loadSessionMcpConfig, type SessionMcpConfig } from "./mcp-config";
import type { PendingAnswers } from "./pending";
import type { ClientMessage, HistoryEntry, ServerMessage } from "./protocol";

const ENABLED_KEY = "enabledServers";
const ALWAYS_KEY = "alwaysAllowed";

interface OpenQuestion {
  message: ServerMessage;
  tool?: string;
}

export interface SessionMcpDeps {
  env: Record<string, unknown>;
  settings: Settings;
  store: HistoryStore;
  broadcast: (message: ServerMessage) => void;
  record: (entry: NewEntry) => HistoryEntry;
  approvals: PendingAnswers<boolean>;
  provider: () => LlmProvider | undefined;
}

export class SessionMcp {
  private readonly config: SessionMcpConfig;
  private readonly mcpHost: McpHost;
  private connecting?: Promise<void>;
  private readonly open = new Map<string, OpenQuestion>();
  private readonly elicitations = new Map<string, (result: ElicitResult) => void>();

  constructor(private readonly deps: SessionMcpDeps) {
    this.config = loadSessionMcpConfig(deps.env, deps.settings);
    this.mcpHost = new McpHost({
      transports: workerTransports(),
      connectTimeoutMs: deps.settings.MCP_CONNECT_TIMEOUT_MS,
      retry: { initialMs: deps.settings.MCP_RETRY_INITIAL_MS, maxMs: 30_000, tries: 3 },
    });
    this.mcpHost.onServerRequest({
      sampling: (request) => this.sample(request.server, request.params, request.signal),
      elicitation: (request) => this.elicit(request.server, request.params, request.signal),
    });
    this.mcpHost.onChange((_server, kind) => {
      if (kind === "state" || kind === "tools") deps.broadcast({ type: "servers", servers: this.status() });
    });
  }

  host(): McpHost {
    return this.mcpHost;
  }

  ensureConnected(): Promise<void> {
    this.connecting ??= this.mcpHost.connect(this.config.config, { require: "available" }).then(() => {
      this.deps.broadcast({ type: "servers", servers: this.status() });
    });
    return this.connecting;
  }

  /** Connects (or retries servers whose backoff passed) and tells the user about servers left out. */
  async prepareTurn(turnId: string): Promise<void> {
    for (const problem of this.config.problems) this.deps.record({ turnId, kind: "notice", text: problem });
    await this.ensureConnected();
    await this.mcpHost.reconnect();
    const enabled = this.enabled();
    for (const server of this.mcpHost.servers()) {
      if (server.state !== "ready" && enabled(server.name)) {
        this.deps.record({ turnId, kind: "notice", text: `MCP server "${server.name}" is unavailable (${server.lastError ?? server.state}); its tools are left out of this turn.` });
      }
    }
    for (const { server, reason } of this.config.unreachable) {
      if (enabled(server)) this.deps.record({ turnId, kind: "notice", text: `MCP server "${server}" is unavailable: ${reason}.` });
    }
  }

  tools(): ToolView[] {
    const enabled = this.enabled();
    return this.mcpHost.tools().filter((t) => enabled(t.server));
  }

  status(): { name: string; state: string; enabled: boolean; toolCount: number; lastError?: string }[] {
    const enabled = this.enabled();
    const live = this.mcpHost.servers().map((s) => ({ name: s.name, state: s.state, enabled: enabled(s.name), toolCount: s.toolCount, lastError: s.lastError }));
    const missing = this.config.unreachable.map((u) => ({ name: u.server, state: "unavailable", enabled: enabled(u.server), toolCount: 0, lastError: u.reason }));
    return [...live, ...missing];
  }

  setEnabled(names: string[]): void {
    this.deps.store.setSetting(ENABLED_KEY, names);
  }

  private enabled(): (server: string) => boolean {
    const chosen = this.deps.store.getSetting<string[]>(ENABLED_KEY);
    if (!chosen) return () => true;
    const set = new Set(chosen);
    return (server) => set.has(server);
  }

  /** Runs the approval policy for one call; asks the user when needed. */
  async approve(turnId: string, call: { callId: string; server: string; tool: string; arguments: Record<string, unknown> }, signal: AbortSignal): Promise<boolean> {
    if (!this.needsApproval(call.server, call.tool)) return true;
    const message: ServerMessage = { type: "approval_request", turnId, callId: call.callId, kind: "tool", server: call.server, tool: call.tool, arguments: call.arguments };
    return this.ask(call.callId, message, `${call.server}.${call.tool}`, signal);
  }

  configuredServers(): McpConfig["servers"] {
    return this.config.config.servers;
  }

  needsApproval(server: string, tool: string): boolean {
    if (!this.deps.settings.TOOL_APPROVAL) return false;
    const configured = this.config.config.servers.find((s) => s.name === server);
    if (configured?.alwaysAllow.includes(tool)) return false;
    return !(this.deps.store.getSetting<string[]>(ALWAYS_KEY) ?? []).includes(`${server}.${tool}`);
  }

  private async ask(id: string, message: ServerMessage, tool: string | undefined, signal: AbortSignal): Promise<boolean> {
    this.open.set(id, { message, tool });
    this.deps.broadcast(message);
    try {
      return await this.deps.approvals.ask(id, false, signal);
    } finally {
      this.open.delete(id);
    }
  }

  approvalTool(callId: string): string | undefined {
    return this.open.get(callId)?.tool;
  }

  resendOpenQuestions(send: (message: ServerMessage) => void): void {
    for (const question of this.open.values()) send(question.message);
  }

  private async sample(server: string, params: { messages: { role: string; content: unknown }[]; systemPrompt?: string; maxTokens: number; temperature?: number }, signal: AbortSignal): Promise<CreateMessageResult> {
    const provider = this.deps.provider();
    if (!provider) throw new McpError(ErrorCode.InvalidRequest, "no model is configured for sampling");
    const text = (content: unknown) => (typeof content === "object" && content && "text" in content ? String((content as { text: unknown }).text) : "");
    const prompt = params.messages.map((m) => `${m.role}: ${text(m.content)}`).join("\n");
    const id = crypto.randomUUID();
    const approved = await this.ask(id, { type: "approval_request", turnId: null, callId: id, kind: "sampling", server, prompt }, undefined, signal);
    if (!approved) throw new McpError(ErrorCode.InvalidRequest, "the user declined the sampling request");
    let answer = "";
    for await (const event of provider.stream({
      system: params.systemPrompt ?? "",
      messages: params.messages.map((m) => (m.role === "assistant" ? { role: "assistant", text: text(m.content) } : { role: "user", text: text(m.content) })),
      tools: [],
      temperature: params.temperature,
      signal,
    })) {
      if (event.type === "text") answer += event.delta;
    }
    this.deps.record({ turnId: null, kind: "notice", text: `Answered a sampling request from "${server}".` });
    return { role: "assistant", model: provider.model, content: { type: "text", text: answer }, stopReason: "endTurn" };
  }

  private elicit(server: string, params: { message: string; requestedSchema?: unknown }, signal: AbortSignal): Promise<ElicitResult> {
    const requestId = crypto.randomUUID();
    const schema = (params.requestedSchema ?? {}) as Record<string, unknown>;
    const message: ServerMessage = { type: "elicitation_request", requestId, server, message: params.message, schema };
    this.open.set(requestId, { message });
    this.deps.broadcast(message);
    return new Promise<ElicitResult>((resolve) => {
      const finish = (result: ElicitResult) => {
        this.elicitations.delete(requestId);
        this.open.delete(requestId);
        this.deps.broadcast({ type: "elicitation_resolved", requestId });
        resolve(result);
      };
      this.elicitations.set(requestId, finish);
      signal.addEventListener("abort", () => finish({ action: "cancel" }), { once: true });
    });
  }

  answerElicitation(response: Extract<ClientMessage, { type: "elicitation_response" }>): boolean {
    const finish = this.elicitations.get(response.requestId);
    if (!finish) return false;
    finish(response.action === "accept" ? { action: "accept", content: response.content ?? {} } : { action: response.action });
    return true;
  }

  async close(): Promise<void> {
    await this.mcpHost.close();
  }
}
