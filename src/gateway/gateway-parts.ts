// What one connected app is made of, built as a chat session's parts are
// (src/session/session-parts.ts): the person's MCP servers through the chat's own
// SessionMcp — the deployment's servers in their audience (less mcp.json's
// `"gateway": false`), their runtime servers and paired machines (unless
// MCP_GATEWAY_USER_SERVERS is off), their OAuth'd servers with the account's stored
// tokens (never the client's) — and the chat's Approvals policy, over the app's storage.
import { Approvals } from "../approval/approvals";
import type { Env } from "../config/env";
import { runtimeConfig, type RuntimeConfig } from "../config/runtime-config";
import { guardedFetch } from "../servers/guarded-fetch";
import { machineFetch } from "../servers/machines";
import { serverUrlRefusal } from "../servers/url-policy";
import { SessionMcp } from "../session/mcp/session-mcp";
import { OperationsReporter } from "../session/operations-report";
import { withFields, type Logger } from "../shared/logger";
import { userAccount } from "../users/account";
import { accountOAuthStorage, sessionOAuthProvider } from "../users/oauth-client-storage";
import { snapshotConfigs } from "../users/server-configs";
import type { AppRecord } from "./app-state";
import { AppSettings } from "./app-settings";
import { UpstreamQuestions } from "./upstream-questions";
import { AuditSink } from "../session/audit-sink";
import { personKey } from "../audit/record";
import type { GatewayAsker } from "./call-record";

/** Why an app's servers may not sample the person's model: the person did not allow it at consent (or in Connected apps). */
const SAMPLING_REFUSED = "this app may not spend your model budget on its servers' sampling requests";

export class GatewayParts {
  readonly runtime: RuntimeConfig;
  readonly log: Logger;
  readonly approvals: Approvals;
  readonly mcp: SessionMcp;
  /** The app's own settings (its always-allowed tools, its requestState key). */
  readonly store: AppSettings;
  /** What /admin shows of the app's calls, as a chat's (the session named `app:<appId>`). */
  readonly reporter: OperationsReporter;
  /** The upstream servers' questions during the app's calls: passed on to the calling client or answered `cancel` (upstream-questions.ts). */
  readonly questions: UpstreamQuestions;
  /** The app's calls in the person's audit trail (call-record.ts): an outbox in the app's storage, sent to their account. */
  readonly audit: AuditSink;
  /** Who a row names as asking: the person, through this app. */
  readonly asker: GatewayAsker;

  constructor(
    private readonly env: Env,
    storage: DurableObjectStorage,
    readonly appId: string,
    readonly record: AppRecord,
    /** Keeps the object up until a report to /admin went. */
    waitUntil: (work: Promise<unknown>) => void = (work) => void work.catch(() => undefined),
  ) {
    this.runtime = runtimeConfig(env);
    this.samplingAllowed = record.samplingAllowed;
    const settings = this.runtime.settings;
    const owner = record.owner;
    this.log = withFields(this.runtime.logger, { component: "gateway", app: record.client.name, appId, user: owner.name || owner.id });
    const store = new AppSettings(storage.sql);
    this.store = store;
    this.reporter = new OperationsReporter({
      env,
      settings: () => settings,
      session: `app:${appId}`,
      owner: () => ({ id: owner.id, name: owner.name || owner.id }),
      servers: () => this.mcp.status(),
      waitUntil,
    });
    this.asker = { person: { key: personKey(owner.id), name: owner.name || owner.id }, client: { id: appId, name: record.client.name } };
    this.audit = new AuditSink({
      sql: storage.sql,
      chat: () => `app:${appId}`,
      owner: () => ({ id: owner.id, name: owner.name || owner.id }),
      retentionDays: () => settings.AUDIT_RETENTION_DAYS,
      decided: (kind) => this.reporter.decided(kind),
      deliver: (ownerId, records, days) => userAccount(env, ownerId).appendAudit(records, days),
      waitUntil,
    });
    const deployed = this.runtime.auth.mode !== "none";
    const policy = { deployed, allowPrivate: settings.ALLOW_PRIVATE_SERVER_URLS };
    this.approvals = new Approvals({
      required: settings.TOOL_APPROVAL,
      alwaysAllow: (server) => this.mcp.configuredServers().find((s) => s.name === server)?.alwaysAllow ?? [],
      store,
      // Nobody watches an app's questions in a page: tool approvals are asked through the client (approval-ask.ts),
      // a server's own questions reach the calling client or are answered at once (never left open: the call would hang).
      broadcast: (message) => this.questions.heard(message),
      // The person's argument rules for all their chats (never another person's: the app is theirs).
      ownerAccount: () => {
        const account = this.account();
        return {
          rulesSnapshot: (known) => account.rulesSnapshot(known),
          addRule: (rule, known) => account.addRule(rule, known),
          deleteRule: (id, known) => account.deleteRule(id, known),
        };
      },
    });
    this.questions = new UpstreamQuestions((frame) => void this.approvals.answer(frame), this.log);
    this.mcp = new SessionMcp({
      env,
      logger: this.log,
      userServers: async (known) =>
        settings.MCP_GATEWAY_USER_SERVERS ? snapshotConfigs(await this.account().serversSnapshot(known)) : { version: "off", servers: [], machines: [] },
      settings,
      store,
      approvals: this.approvals,
      offered: (server) => server.gateway !== false,
      changed: () => this.onChange?.(),
      // Each call counted in /admin's tool metrics (an app's calls end no turn: sent as the Tool console's are).
      toolCalled: (call) => {
        this.reporter.toolCalled(call);
        this.reporter.send();
      },
      notice: (text) => this.log.info("gateway notice", { text }),
      // Sampling, for an app the person let spend their model budget: the deployment's default
      // model answers (an app has no chat model), held and counted in the person's daily budget
      // as a chat's sampling is. The permission is the approval: no page watches an app's calls.
      provider: async () => this.runtime.provider,
      samplingBlocked: () => (this.samplingAllowed ? undefined : SAMPLING_REFUSED),
      approveSampling: async (server, summary) => {
        this.log.info("gateway sampling", { server, promptChars: summary.length });
        return true;
      },
      used: (tokens, hold) =>
        this.account()
          .addUsage(tokens, hold)
          .then(() => undefined),
      samplingRefusal: async (hold, tokens) => {
        const budget = settings.DAILY_TOKEN_BUDGET;
        return budget === undefined ? undefined : this.account().holdSampling(hold, tokens, budget);
      },
      oauth: (server, outbound) => sessionOAuthProvider(env, owner.id, server, outbound),
      audience: () => ({ mode: this.runtime.auth.mode, user: { id: owner.id, name: owner.name } }),
      refuseUrl: (url) => serverUrlRefusal(url, policy),
      outbound: guardedFetch(policy),
      recordChallenge: async (server, challenge) => {
        if (sessionOAuthProvider(env, owner.id, server)) await accountOAuthStorage(env, owner.id, server).save({ challenge });
      },
      machineFetch: machineFetch(() => this.account()),
      ownerDiscovery: {
        read: (wanted) => this.account().discoveryFor(wanted),
        keep: async (rows) => void (await this.account().keepDiscovery(rows)),
      },
    });
  }

  private samplingAllowed: boolean;

  /** The person changed the app's sampling permission in Connected apps: from the next sampling request on. */
  allowSampling(on: boolean): void {
    this.samplingAllowed = on;
  }

  /** Told when the servers' tools or states changed (list_changed to the app's clients). */
  onChange?: () => void;

  account() {
    return userAccount(this.env, this.record.owner.id);
  }

  private prepared?: Promise<void>;

  /**
   * The person's servers read again and the tools known, from the account's catalogue when
   * every offered server is in it (the connections then open in the background), else by
   * connecting. `fresh`: read the person's servers again even if read before (tools/list).
   */
  prepare(fresh = false): Promise<void> {
    if (!this.prepared || fresh) {
      const run = this.mcp.prepareTurn();
      this.prepared = run.catch((error: unknown) => {
        this.prepared = undefined;
        throw error;
      });
    }
    return this.prepared;
  }

  close(): Promise<void> {
    return this.mcp.close();
  }
}
