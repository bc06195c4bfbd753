// Builds a session's McpHost: its transports (the owner's OAuth, the address rule for
// their own servers, paired machines through their account, each turn's trace), and
// the server requests it answers (sampling with the session's model, elicitation as a
// question to the person), each through the session's rules.
import type { CreateMessageResult } from "@modelcontextprotocol/client";
import { answerSampling, type SamplingParams } from "../../orchestrator/sampling";
import type { RemoteServerConfig } from "../../shared/mcp-config/config";
import { McpHost } from "../../mcp/host";
import type { EraVerdict } from "../../mcp/protocol-era";
import type { ListMemory } from "../../mcp/list-ttl";
import { workerTransports } from "../../mcp/transports";
import { machineOfUrl } from "../../machines/tunnel-url";
import { challengeRecordingFetch } from "../../mcp/oauth/challenge-fetch";
import { rpcRefusal } from "../../mcp/rpc-refusal";
import type { ChatRequestHandlers } from "../../mcp/server-requests";
import type { SessionMcpDeps } from "./deps";
import { askUrl, urlRequired } from "./url-elicitation";

/** What the host asks of the session's MCP side as it connects and calls. */
export interface SessionHostContext {
  /** A stdio server reached through the bridge or a paired machine: never OAuth. */
  bridged(server: RemoteServerConfig): boolean;
  /** One of the owner's own runtime servers, held to the address rule. */
  own(server: RemoteServerConfig): boolean;
  /** The current turn's trace id (32 hex digits), if any. */
  traceId(): string | undefined;
  /** The era a server was found to speak last time, if kept. */
  era(server: string): EraVerdict | undefined;
  /** Its lists with a ttl (kept-lists.ts): a connect skips a list still fresh. */
  lists: ListMemory;
}

export function createSessionHost(deps: SessionMcpDeps, context: SessionHostContext): McpHost {
  const host = new McpHost({
    transports: workerTransports({
      auth: (server) => (context.bridged(server) ? undefined : deps.oauth?.(server, context.own(server) ? deps.outbound : undefined)),
      traceId: () => context.traceId(),
      fetchFor: (server) => {
        if (machineOfUrl(server.url)) return deps.machineFetch;
        // The owner's own server (not the deployment's): every request and redirect is held to the address rule.
        const own = context.own(server) ? deps.outbound : undefined;
        // A server the user may sign in to: its challenges, on any request, are kept for the sign-in.
        const record = deps.recordChallenge;
        return record && !context.bridged(server) ? challengeRecordingFetch((challenge) => record(server, challenge), own) : own;
      },
    }),
    logger: deps.logger,
    onToolCall: (call) => {
      // A call that ended is what a URL-mode question waited on when its server sends no completion (2026 always).
      deps.approvals.urlWaits.settled(call.server);
      deps.toolCalled?.(call);
    },
    connectTimeoutMs: deps.settings.MCP_CONNECT_TIMEOUT_MS,
    retry: { initialMs: deps.settings.MCP_RETRY_INITIAL_MS, maxMs: 30_000, tries: 3 },
    // What each server was found with, kept with its discovery: its era (the next connect skips the probe), its lists with a ttl.
    eras: {
      remembered: (name) => context.era(name),
      freshList: (name, kind, now) => context.lists.freshList?.(name, kind, now),
      listed: (name, kind, list) => context.lists.listed?.(name, kind, list),
    },
  });
  host.onServerRequest({
    sampling: (request) => sample(deps, request.server, request.params, request.signal),
    elicitation: (request) => {
      if (request.params.mode === "url") return askUrl(deps.approvals, request.server, request.params, request.signal, deps.logger);
      const schema = "requestedSchema" in request.params ? (request.params.requestedSchema as Record<string, unknown>) : {};
      return deps.approvals.elicit(request.server, request.params.message, schema, request.signal);
    },
    elicitationComplete: ({ server, elicitationId }) => deps.approvals.urlWaits.complete(server, elicitationId),
    urlElicitationRequired: (request) => urlRequired(deps.approvals, request, deps.logger),
  } satisfies ChatRequestHandlers);
  return host;
}

/** A server's sampling request, answered with the session's model within the owner's budget, after the person approves. */
async function sample(deps: SessionMcpDeps, server: string, params: SamplingParams, signal: AbortSignal): Promise<CreateMessageResult> {
  const blocked = deps.samplingBlocked?.();
  if (blocked) throw rpcRefusal("sampling_not_allowed", blocked);
  const provider = await deps.provider();
  if (!provider) throw rpcRefusal("no_model", "no model is configured for sampling");
  const hold = `sampling:${crypto.randomUUID()}`;
  const pick = deps.samplingModel;
  const result = await answerSampling(
    params,
    {
      provider,
      models: deps.settings.SAMPLING_MODELS,
      maxTokensCap: deps.settings.SAMPLING_MAX_TOKENS,
      approve: (summary, asked) => (deps.approveSampling ?? deps.approvals.approveSampling.bind(deps.approvals))(server, summary, asked),
      used: (tokens) => deps.used?.(tokens, hold),
      refusal: (tokens) => deps.samplingRefusal?.(hold, tokens) ?? Promise.resolve(undefined),
      ...(pick ? { choose: (preferences) => pick(preferences, deps.settings.SAMPLING_MODELS) } : {}),
    },
    signal,
  );
  deps.notice(`Answered a sampling request from "${server}" with ${result.model}.`);
  return result;
}
