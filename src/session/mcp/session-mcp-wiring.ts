// How a chat session's MCP servers (session-mcp.ts) are wired to its other parts: the
// owner's servers and OAuth sign-ins, the model for sampling, spend, approvals, the URL
// policy and paired machines. Built once per wake by SessionParts.mcp.
import { machineFetch } from "../../servers/machines";
import { guardedFetch } from "../../servers/guarded-fetch";
import { serverUrlRefusal } from "../../servers/url-policy";
import { userAccount } from "../../users/account";
import { accountOAuthStorage, sessionOAuthProvider } from "../../users/oauth-client-storage";
import type { Approvals } from "../../approval/approvals";
import type { RuntimeConfig } from "../../config/runtime-config";
import type { HistoryStore } from "../history";
import type { OperationsReporter } from "../operations-report";
import type { SessionModel } from "../session-model";
import type { SessionOwner } from "../session-owner";
import type { SessionSite } from "../session-site";
import type { TurnRunner } from "../turn-runner";
import { SessionMcp } from "./session-mcp";

/** The parts (session-parts.ts) the MCP servers use: a narrow view, so this file does not import SessionParts. */
export interface McpWiredParts {
  readonly runtime: RuntimeConfig;
  readonly owner: SessionOwner;
  readonly store: HistoryStore;
  readonly approvals: Approvals;
  readonly mcp: SessionMcp;
  readonly turns: Pick<TurnRunner, "openedTurn">;
  readonly model: SessionModel;
  readonly reporter: OperationsReporter;
}

/** The session's MCP servers, over `parts` (read lazily: `parts.mcp` is this object once built). */
export function wireSessionMcp(site: SessionSite, parts: McpWiredParts): SessionMcp {
  return new SessionMcp({
    env: site.env,
    logger: site.log,
    userServers: (known) => parts.owner.servers(known),
    settings: parts.runtime.settings,
    store: parts.store,
    approvals: parts.approvals,
    changed: () => {
      site.sendAll({ type: "servers", servers: parts.mcp.status() });
      site.watchUnavailable();
    },
    // The running turn's opening written first (it may wait for the model request: deferred-opening.ts), so the notice follows its question.
    notice: (text) => site.record({ turnId: parts.turns.openedTurn() ?? null, kind: "notice", text }),
    provider: () => parts.model.resolve().then((r) => (r.ok ? r.provider : undefined)),
    samplingModel: (preferences, listed) => parts.model.samplingPick(preferences, listed),
    used: (tokens, hold) => parts.owner.addUsage(tokens, hold),
    samplingRefusal: (hold, tokens) => parts.owner.holdSampling(hold, tokens),
    oauth: (server, outbound) => {
      const owner = parts.owner.id;
      return owner ? sessionOAuthProvider(site.env, owner, server, outbound) : undefined;
    },
    audience: () => {
      const owner = parts.owner.id;
      return { mode: parts.runtime.auth.mode, user: owner ? { id: owner, name: parts.owner.name } : undefined };
    },
    refuseUrl: (url) => serverUrlRefusal(url, { deployed: parts.runtime.auth.mode !== "none", allowPrivate: parts.runtime.settings.ALLOW_PRIVATE_SERVER_URLS }),
    outbound: guardedFetch({ deployed: parts.runtime.auth.mode !== "none", allowPrivate: parts.runtime.settings.ALLOW_PRIVATE_SERVER_URLS }),
    recordChallenge: async (server, challenge) => {
      const owner = parts.owner.id;
      // Only for a server the owner signs in to (no Authorization header of its own).
      if (owner && sessionOAuthProvider(site.env, owner, server)) await accountOAuthStorage(site.env, owner, server).save({ challenge });
    },
    machineFetch: machineFetch(() => {
      const owner = parts.owner.id;
      return owner ? userAccount(site.env, owner) : undefined;
    }),
    toolCalled: parts.reporter.toolCalled,
    ownerDiscovery: parts.owner.discovery,
  });
}
