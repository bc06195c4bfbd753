// The parts a chat session is made of, each built on first use and wired to the others:
// its history (history.ts), owner (session-owner.ts), model, approvals, MCP servers,
// attachments, files, turns, search feed and operations reports. ChatSession holds one and
// routes its sockets and the Worker's RPC calls to them; what they need of the Durable
// Object itself (its sockets, keep-alive, the history frame) comes through `SessionSite`.
import { chatPreset, personalPrompt } from "./chat-preset";
import { OWNER_KEY_SETTING } from "./speakers";
import { Approvals } from "../approval/approvals";
import { runtimeConfig, type RuntimeConfig } from "../config/runtime-config";
import { userAccount } from "../users/account";
import { KEEP_ALIVE_GRACE_MS } from "./agent-adapter";
import { AttachmentStore } from "./attachment-store";
import { SessionAttachments } from "./attachments";
import { HistoryStore } from "./history";
import { OperationsReporter } from "./operations-report";
import { SearchFeed } from "./search-feed";
import { SessionFiles } from "./session-files";
import type { SessionMcp } from "./mcp/session-mcp";
import { wireSessionMcp } from "./mcp/session-mcp-wiring";
import type { SessionSite } from "./session-site";
import { SessionModel } from "./session-model";
import { SessionOwner } from "./session-owner";
import { TurnRunner } from "./turn-runner";
import { SessionTasks } from "./tasks/session-tasks";
import { TaskRows } from "./tasks/task-rows";
import { accountTaskSlots } from "./tasks/task-slot-port";
import { keepNameForAlarms } from "./tasks/task-alarm";
import { AwayNotices } from "./notify/away-notices";
import { answerers } from "./notify/presence-watch";
import { pushTo } from "./notify/push-port";
import { ActionTokens } from "./notify/action-tokens";
import { AuditSink } from "./audit-sink";

export type { SessionSite } from "./session-site";

export class SessionParts {
  private storeCache?: HistoryStore;
  private approvalsCache?: Approvals;
  private mcpCache?: SessionMcp;
  private turnsCache?: TurnRunner;
  private attachmentsCache?: SessionAttachments;
  private attachmentStoreCache?: AttachmentStore;
  private filesCache?: SessionFiles;
  private ownerCache?: SessionOwner;
  private reporterCache?: OperationsReporter;
  private modelCache?: SessionModel;
  private searchFeedCache?: SearchFeed;
  private tasksCache?: SessionTasks;
  private noticesCache?: AwayNotices;
  private tokensCache?: ActionTokens;
  private auditCache?: AuditSink;

  constructor(private readonly site: SessionSite) {}

  get runtime(): RuntimeConfig {
    return runtimeConfig(this.site.env);
  }

  /** The running turn, without building the turn runner. */
  get runningTurn(): string | undefined {
    return this.turnsCache?.running;
  }

  /** The MCP servers if this wake connected them already (undefined: nothing to close or retry). */
  get connectedMcp(): SessionMcp | undefined {
    return this.mcpCache;
  }

  /** Forgets the MCP servers (the caller closes them): the next use connects afresh. */
  dropMcp(): void {
    this.mcpCache = undefined;
  }

  /** What this session tells the operator's view (/admin): its tool calls, servers and turns. */
  get reporter(): OperationsReporter {
    this.reporterCache ??= new OperationsReporter({
      env: this.site.env,
      settings: () => this.runtime.settings,
      session: this.site.name(),
      owner: () => {
        const id = this.owner.id;
        return id ? { id, name: this.owner.name ?? id } : undefined;
      },
      servers: () => this.mcp.status(),
      waitUntil: (work) => this.site.ctx.waitUntil(work),
    });
    return this.reporterCache;
  }

  /** The audit trail's outbox, sent to the owner's account (audit-sink.ts). */
  get audit(): AuditSink {
    this.auditCache ??= new AuditSink({
      sql: this.site.ctx.storage.sql,
      chat: () => this.site.name(),
      owner: () => {
        const id = this.owner.id;
        return id ? { id, name: this.owner.name ?? id } : undefined;
      },
      retentionDays: () => this.runtime.settings.AUDIT_RETENTION_DAYS,
      decided: (kind) => this.reporter.decided(kind),
      deliver: (owner, records, days) => userAccount(this.site.env, owner).appendAudit(records, days),
      waitUntil: (work) => this.site.ctx.waitUntil(work),
    });
    return this.auditCache;
  }

  get store(): HistoryStore {
    this.storeCache ??= new HistoryStore(this.site.ctx.storage.sql);
    return this.storeCache;
  }

  get owner(): SessionOwner {
    this.ownerCache ??= new SessionOwner(this.site.env, this.site.name(), this.store, () => this.runtime.settings);
    return this.ownerCache;
  }

  /** The owner's search index learns this session's messages (search-feed.ts). */
  get searchFeed(): SearchFeed {
    this.searchFeedCache ??= new SearchFeed({
      sessionId: this.site.name(),
      store: this.store,
      account: () => this.owner.listedAccount(),
      // Reports take a few ms: agents' keep-alive would write its alarm job before and after each (two commits per report).
      keepAliveWhile: (work) => this.site.keepAliveAfter(KEEP_ALIVE_GRACE_MS, work),
    });
    return this.searchFeedCache;
  }

  get model(): SessionModel {
    this.modelCache ??= new SessionModel({ store: this.store, config: () => this.runtime, ownProviders: () => this.owner.modelProviders() });
    return this.modelCache;
  }

  get approvals(): Approvals {
    this.approvalsCache ??= new Approvals({
      required: this.runtime.settings.TOOL_APPROVAL,
      alwaysAllow: (server) => this.mcp.configuredServers().find((s) => s.name === server)?.alwaysAllow ?? [],
      store: this.store,
      broadcast: (message) => {
        this.site.sendAll(message);
        this.notices.heard(message);
      },
      granted: (turnId, server, tool) => this.site.granted?.(turnId, server, tool) ?? false,
      ownerAccount: () => this.owner.rulesAccount(),
      rulesPerChat: this.runtime.settings.RULES_PER_CHAT,
      // A question with no turn of its own (sampling, a server's elicitation) belongs to the turn running.
      waitMs: (turnId) => this.site.questionWaitMs?.(turnId ?? this.runningTurn),
    });
    return this.approvalsCache;
  }

  /** Its MCP servers, wired to the other parts in mcp/session-mcp-wiring.ts. */
  get mcp(): SessionMcp {
    this.mcpCache ??= wireSessionMcp(this.site, this);
    return this.mcpCache;
  }

  get attachmentStore(): AttachmentStore {
    this.attachmentStoreCache ??= new AttachmentStore(this.site.ctx.storage.sql);
    return this.attachmentStoreCache;
  }

  get attachments(): SessionAttachments {
    this.attachmentsCache ??= new SessionAttachments({
      store: this.attachmentStore,
      host: () => this.mcp.host(),
      configured: (server) => this.mcp.isConfigured(server),
      enabled: (server) => this.mcp.isEnabled(server),
      maxChars: () => this.runtime.settings.TOOL_RESULT_CHARS,
      broadcast: (message) => this.site.sendAll(message),
      keepAliveWhile: (work) => this.site.keepAliveWhile(work),
      warn: (message) => this.site.log.warn(message),
    });
    return this.attachmentsCache;
  }

  /** Files from the owner's computer attached to this session's messages (session-files.ts). */
  get files(): SessionFiles {
    this.filesCache ??= new SessionFiles({
      env: this.site.env,
      session: this.site.name(),
      owner: () => this.owner.id,
      maxFiles: () => this.runtime.settings.UPLOAD_MAX_FILES,
      maxChars: () => this.runtime.settings.TOOL_RESULT_CHARS,
    });
    return this.filesCache;
  }

  get turns(): TurnRunner {
    this.turnsCache ??= new TurnRunner({
      store: this.store,
      mcp: () => this.mcp,
      approvals: this.approvals,
      config: () => this.runtime,
      model: () => this.model.resolve(),
      admit: (ownKey) => {
        const begun = this.owner.beginTurn(this.mcp.knownUserVersion, ownKey, this.approvals.mine.known);
        this.mcp.useUserServers(begun.then((b) => b.servers));
        return begun.then((b) => {
          // The owner's rules for all chats, before any of this turn's calls is decided.
          if (b.rules) this.approvals.mine.take(b.rules);
          return b.decision;
        });
      },
      // The question is indexed with the turn's answers once it ends (report), not on the turn's path.
      touched: (text) => this.owner.touched(text),
      used: async (usage, ownKey) => {
        if (!ownKey) this.owner.turnUsage(usage.inputTokens + usage.outputTokens);
      },
      record: (entry) => this.site.record(entry),
      broadcast: (message) => {
        this.site.sendAll(message);
        this.notices.heard(message);
      },
      keepAliveWhile: (work) => this.site.keepAliveAfter(KEEP_ALIVE_GRACE_MS, work),
      attachedParts: async (entry) => {
        const parts = [...(this.attachments.parts(entry) ?? []), ...((await this.files.parts(entry.files)) ?? [])];
        return parts.length > 0 ? parts : undefined;
      },
      log: this.site.log,
      report: (turn) => {
        this.reporter.send(turn);
        this.searchFeed.flush();
        this.audit.flushSoon();
      },
      audit: (call) => this.audit.add(call),
      branched: () => this.site.sendAll(this.site.historyFrame()),
      tasks: () => this.tasks,
      personal: () => personalPrompt(this.owner.instructions, chatPreset(this.store)),
      speakers: () => ({ key: this.store.getSetting<string>(OWNER_KEY_SETTING), name: this.owner.name }),
    });
    return this.turnsCache;
  }

  /** Pushes to the people who may answer and have no visible page on this chat (notify/away-notices.ts). */
  get notices(): AwayNotices {
    this.noticesCache ??= new AwayNotices({
      session: () => this.site.name(),
      answerers: () => answerers(this.owner.id, this.site.approvers?.() ?? []),
      owner: () => this.owner.id,
      visible: () => this.site.visibleUsers(),
      // Not on the turn's path: the object is kept awake until the push service answered.
      push: (user, notice) => {
        const { kind, ref, expiresAt } = notice;
        const token = kind === "approval" && ref && expiresAt ? () => this.tokens.mint(this.site.name(), ref, user, expiresAt) : undefined;
        void this.site.keepAliveWhile(() => pushTo(this.site.env, user, notice, this.site.log, token));
      },
      longTurnMs: () => this.runtime.settings.PUSH_LONG_TURN_SECONDS * 1000,
      waitMs: (turnId) => this.site.questionWaitMs?.(turnId ?? this.runningTurn),
      settled: (callId) => this.tokens.settle(callId),
    });
    return this.noticesCache;
  }

  /** Notifications' single-use Allow/Deny tokens (notify/action-tokens.ts). */
  get tokens(): ActionTokens {
    this.tokensCache ??= new ActionTokens(this.site.ctx.storage.sql);
    return this.tokensCache;
  }

  /** Tasks the session's tool calls started (MCP Tasks), held in SQLite and polled on the alarm. */
  get tasks(): SessionTasks {
    this.tasksCache ??= new SessionTasks({
      rows: new TaskRows(this.site.ctx.storage.sql),
      host: async () => {
        await this.mcp.ensureConnected();
        return this.mcp.host();
      },
      wakeAt: (at) => {
        void keepNameForAlarms(this.site.ctx.storage, this.site.name()).catch(() => undefined);
        this.site.wakeForTasks(at);
      },
      // A task's questions (form, URL) and sampling take the host's own handlers (session-host.ts); a URL wait ends as the task moves on.
      answered: (server) => this.approvals.urlWaits.settled(server),
      broadcast: (message) => this.site.sendAll(message),
      // The cap on running tasks is the owner's, across their sessions (src/users/task-slots.ts).
      slots: () => {
        const owner = this.owner.id;
        return owner ? accountTaskSlots(userAccount(this.site.env, owner), this.site.name(), this.runtime.settings.TASKS_PER_USER) : undefined;
      },
      limits: { running: this.runtime.settings.TASKS_PER_USER },
      // Nobody waits for an ended task: a turn of its own opens with what it returned (not while another runs).
      followUp: async ({ text, task }) => {
        const refused = await this.turns.start(async () => ({ entries: [{ kind: "user", text, task }], title: text }));
        if (refused?.code === "turn_in_progress") return false;
        if (refused) this.site.record({ turnId: null, kind: "notice", text });
        return true;
      },
      log: this.site.log,
    });
    return this.tasksCache;
  }
}
