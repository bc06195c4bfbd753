// What a session tells the deployment's operations object (src/ops/Operations.ts): the
// tool calls that reached a server since its last report, its servers' states (each
// marked mcp.json's or the owner's own) and, at a turn's end, how the turn went. Sent
// without waiting: the operator's view may lag, a user's turn never does.
import type { Env } from "../config/env";
import type { Settings } from "../config/settings";
import type { ToolCallRecord } from "../mcp/host";
import { operations } from "../ops/operations-object";
import type { CallReport, ServerReport, TurnOutcomeReport } from "../ops/reports";
import { loadSessionMcpConfig } from "../servers/mcp-json";
import type { ServerStatusView } from "./mcp/session-mcp";

/** Calls kept between two reports (a console session may call many tools and end no turn). */
const CALLS_KEPT = 200;

export interface OperationsReportDeps {
  env: Env;
  settings: () => Settings;
  session: string;
  owner: () => { id: string; name: string } | undefined;
  servers: () => ServerStatusView[];
  /** Keeps the object up until the report is delivered. */
  waitUntil: (work: Promise<unknown>) => void;
}

export class OperationsReporter {
  private calls: CallReport[] = [];

  constructor(private readonly deps: OperationsReportDeps) {}

  readonly toolCalled = (call: ToolCallRecord): void => {
    if (this.calls.length >= CALLS_KEPT) this.calls.shift();
    this.calls.push({ server: call.server, tool: call.tool, ms: Math.round(call.ms), ok: call.ok, ...(call.code ? { code: call.code } : {}) });
  };

  /** After a turn, or after tool calls made without one (the Tool console). */
  send(turn?: TurnOutcomeReport): void {
    const owner = this.deps.owner();
    if (!owner || (!turn && this.calls.length === 0)) return;
    const calls = this.calls;
    this.calls = [];
    const shared = new Set(loadSessionMcpConfig(this.deps.env, this.deps.settings()).config.servers.map((s) => s.name));
    const servers: ServerReport[] = this.deps.servers().map((s) => ({
      name: s.name,
      deployment: shared.has(s.name),
      state: s.enabled ? s.state : "off",
      ...(s.lastError ? { lastError: s.lastError } : {}),
    }));
    const report = operations(this.deps.env)
      .sessionReport({ at: Date.now(), user: owner, session: this.deps.session, calls, servers, ...(turn ? { turn } : {}) })
      .catch(() => undefined);
    this.deps.waitUntil(report);
  }
}
