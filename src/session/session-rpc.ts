// ChatSession's RPC for the Worker (it checked the caller's identity; each call is
// checked against the owner): admission, direct tool calls, MCP Apps, the servers'
// catalog, history pages, import and export, a notification's answer, and deletion.
import type { DirectCallOutcome, ServerInfo } from "./answers";
import type { HostMetrics } from "../mcp/host";
import { KEEP_ALIVE_GRACE_MS } from "./agent-adapter";
import { callDirect, serversInfo } from "./direct-calls";
import type { AuditedCall } from "./audit-sink";
import { fullEntry, historyPage, wholeHistory, type HistoryPage } from "./history-pages";
import type { HistoryEntry, ServerMessage, Usage } from "../protocol/messages";
import { applyPreset, forgetChatPreset } from "./chat-preset";
import { forgetServerChoice } from "./mcp/session-mcp";
import { readAppResource, type AppResourceOutcome, type AppToolCallOutcome } from "./mcp-apps";
import type { AdmitOptions, PersonAdmission } from "./session-owner";
import { catalogComplete, catalogList, type CatalogKind, type CatalogList, type CatalogOutcome } from "./catalog-calls";
import type { CompleteInput, Completion } from "../mcp/catalog";
import { ImportedEntriesSchema, importInto, type ImportedEntry } from "./history-import";
import { answerFromPush, type PushAnswer } from "./notify/push-answer";
import { SessionCore } from "./session-core";

export abstract class SessionRpc extends SessionCore {
  /**
   * Whether `user` owns this session (the first user to open it becomes its owner); people/session-people.ts adds members.
   * The Worker's first call on a session (src/http/owned-session.ts): it starts the object (agents' lifecycle, onStart)
   * itself, in this round trip, rather than the Worker making one call for that first (getAgentByName).
   */
  async admit(user: string, options: AdmitOptions): Promise<PersonAdmission> {
    await this.__unsafe_ensureInitialized();
    return this.parts.owner.admit(user, options);
  }

  async serversInfo(): Promise<ServerInfo[]> {
    return serversInfo(this.parts.mcp, this.parts.approvals);
  }

  metricsInfo(): HostMetrics {
    return this.parts.mcp.host().metrics();
  }

  async callTool(name: string, args: Record<string, unknown>, approval: { approved: boolean; remember: boolean }): Promise<DirectCallOutcome> {
    const refused = await this.parts.owner.refuseCall();
    if (refused) return refused;
    // How the call was decided, before an "always" given with it applies (that one was asked and allowed).
    const [server = "", tool = name] = name.split(/\.(.*)/s);
    const unasked = this.parts.approvals.decide({ server, tool, arguments: args, turnId: null });
    // The console's "approved": the person confirmed in their page (only the owner reaches this RPC: refuseCall).
    const decision = unasked ?? { allowed: true, how: "asked" as const, answer: "allowed" as const, via: "page" as const };
    if (approval.approved && approval.remember) this.parts.approvals.remember(name);
    const audit = { decision, add: (call: AuditedCall) => this.parts.audit.add(call) };
    const outcome = await this.keepAliveAfter(KEEP_ALIVE_GRACE_MS, () =>
      callDirect(this.parts.mcp, this.parts.approvals, (entry) => this.record(entry), name, args, approval.approved, audit),
    );
    this.parts.reporter.send();
    return outcome;
  }

  /** MCP Apps: the HTML and declared CSP of a `ui://` resource a tool of `server` declares (mcp-apps.ts). */
  async appResource(server: string, uri: string): Promise<AppResourceOutcome> {
    return this.keepAliveWhile(() => readAppResource(this.parts.mcp, server, uri));
  }

  /** MCP Apps: a tool call from an app framed in the page, asked for approval like a model's call. */
  async appToolCall(request: { id?: string; server: string; tool: string; arguments: Record<string, unknown> }): Promise<AppToolCallOutcome> {
    const refused = await this.parts.owner.refuseCall();
    if (refused) return refused;
    return this.keepAliveWhile(() => this.appCalls.call(this.parts.mcp, this.parts.approvals, request, (call) => this.parts.audit.add(call)));
  }

  /** MCP Apps: the page cancels an app's pending call (its app went away, or cancelled it). */
  cancelAppToolCall(id: string): boolean {
    return this.appCalls.cancel(id);
  }

  /** Closes and reopens this session's MCP connections (after a server was fixed, or its config changed). */
  async restartServers(): Promise<void> {
    // A changed list already rebuilt the connections; otherwise rebuild them now.
    if (!(await this.parts.mcp.syncUserServers())) await this.parts.mcp.rebuild();
    await this.keepAliveWhile(() => this.parts.mcp.ensureConnected());
  }

  /** Reconnects one server at once: its owner just signed in to it (src/http/oauth.ts). */
  async reconnectServer(name: string): Promise<string | undefined> {
    return this.keepAliveWhile(() => this.parts.mcp.reconnectServer(name));
  }

  /** The resources, templates or prompts of this session's enabled servers (connecting first when needed). */
  async catalog(kind: CatalogKind): Promise<CatalogList> {
    await this.connected();
    return catalogList(this.parts.mcp, kind);
  }

  async complete(input: CompleteInput): Promise<CatalogOutcome<Completion>> {
    await this.connected();
    return this.keepAliveWhile(() => catalogComplete(this.parts.attachments, this.parts.mcp, input));
  }

  /** The newest window of the history, or the one before entry `before` (the page scrolled up). */
  getHistory(before?: number): HistoryPage {
    return historyPage(this.parts.store, before);
  }

  /** The conversation's current path whole, for the account's export. */
  exportHistory(): { entries: HistoryEntry[]; usage: Record<string, Usage> } {
    return wholeHistory(this.parts.store);
  }

  /** One history entry whole (a window sends big results shortened); undefined if not on the current path. */
  getEntry(seq: number): HistoryEntry | undefined {
    return fullEntry(this.parts.store, seq);
  }

  /** A new session's history from an export (src/http/import.ts): written only into an empty session, then made searchable. */
  async importHistory(entries: ImportedEntry[]): Promise<{ imported: number } | { refused: string }> {
    const parsed = ImportedEntriesSchema.safeParse(entries);
    if (!parsed.success) return { refused: "the entries are not valid" };
    if (this.parts.store.count() > 0) return { refused: "the session is not empty" };
    const imported = importInto(this.parts.store, parsed.data);
    this.parts.searchFeed.flush();
    await this.parts.searchFeed.settled();
    return { imported };
  }

  /** A notification's Allow once / Deny (POST /push/act): the token is the credential; `presenter` who is signed in, if anyone. */
  answerPush(token: string, approved: boolean, presenter?: string): Promise<PushAnswer> {
    return answerFromPush(this.parts, this.log, { token, approved, presenter }, (user) => this.answererFor(user));
  }

  /** Applies the owner's preset `id` (chat-preset.ts): the refusals for whoever asked; everyone hears the rest. */
  async applyPreset(id: string): Promise<Extract<ServerMessage, { type: "error" }>[]> {
    const { errors, connect } = await applyPreset(
      {
        owner: this.parts.owner,
        model: this.parts.model,
        mcp: () => this.parts.mcp,
        store: this.parts.store,
        record: (entry) => this.record(entry),
        sendAll: (message) => this.sendAll(message),
      },
      id,
    );
    // A server switched on that was left unconnected is connected now, unless a turn runs (then at the next turn).
    if (connect && !this.parts.turns.running) void this.keepAliveWhile(connect).catch(() => undefined);
    return errors;
  }

  async deleteSession(): Promise<void> {
    // The owner stays recorded: a deleted id can never be claimed by someone else.
    await this.parts.owner.unlist();
    // Waited for: a turn that raced the delete (Delete my data) records nothing after the history is cleared.
    await this.parts.turns.drop("session deleted");
    this.appCalls.cancelAll("session deleted");
    await this.parts.tasks.forget();
    await this.parts.attachments.forget(this.parts.connectedMcp?.host());
    await this.parts.files.forget();
    await this.parts.connectedMcp?.close();
    this.parts.dropMcp();
    for (const connection of this.getConnections()) connection.close(1000, "session deleted");
    this.parts.store.clear();
    this.parts.approvals.forget();
    forgetServerChoice(this.parts.store);
    this.parts.model.forget();
    forgetChatPreset(this.parts.store);
  }
}
