// What a session tells the deployment's operations object (src/ops/Operations.ts): each
// turn that ended with the tool calls made during it, tool calls made without a turn (the
// Tool console), and its servers' states (each marked mcp.json's or the owner's own).
// Sent without waiting, and at most once every REPORT_GAP_MS: what happens in between goes
// in the next report, so one object for the whole deployment gets a call (and a commit)
// per session every few seconds at most, not one per turn. The operator's view may lag by
// that much; a user's turn never waits for it.
import type { Env } from "../config/env";
import type { Settings } from "../config/settings";
import type { ToolCallRecord } from "../mcp/host";
import { operations } from "../ops/operations-object";
import type { CallReport, DecisionKind, ServerReport, SessionEvent, TurnOutcomeReport } from "../ops/reports";
import { loadSessionMcpConfig } from "../servers/mcp-json";
import type { ServerStatusView } from "./mcp/session-mcp";

/** Calls kept between two reports (a console session may call many tools and end no turn). */
const CALLS_KEPT = 200;
/** Turns and console calls kept for the next report (a burst of turns between two reports). */
const EVENTS_KEPT = 100;
export const REPORT_GAP_MS = 2_000;

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
  private decisions: Partial<Record<DecisionKind, number>> = {};
  private events: SessionEvent[] = [];
  /** The servers as they were at the newest event (by delivery, the last socket may have closed them). */
  private servers: ServerStatusView[] = [];
  private lastSent = 0;
  private timer?: ReturnType<typeof setTimeout>;
  /** The report waiting for its gap, and the last one on its way (settled). */
  private waiting: Promise<void> = Promise.resolve();
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly deps: OperationsReportDeps) {}

  readonly toolCalled = (call: ToolCallRecord): void => {
    if (this.calls.length >= CALLS_KEPT) this.calls.shift();
    this.calls.push({ server: call.server, tool: call.tool, ms: Math.round(call.ms), ok: call.ok, ...(call.code ? { code: call.code } : {}) });
  };

  /** A call was decided (the audit trail's kind): counted for /admin, nothing else about it. */
  decided(kind: DecisionKind): void {
    this.decisions[kind] = (this.decisions[kind] ?? 0) + 1;
  }

  /** After a turn (its calls go with it), or after tool calls made without one (the Tool console). */
  send(turn?: TurnOutcomeReport): void {
    const decided = Object.keys(this.decisions).length > 0;
    if (!this.deps.owner() || (!turn && this.calls.length === 0 && !decided)) return;
    if (this.events.length >= EVENTS_KEPT) this.events.shift();
    this.events.push({ at: Date.now(), calls: this.calls, ...(turn ? { turn } : {}), ...(decided ? { decisions: this.decisions } : {}) });
    this.calls = [];
    this.decisions = {};
    this.servers = this.deps.servers();
    if (this.timer !== undefined) return;
    const wait = this.lastSent + REPORT_GAP_MS - Date.now();
    if (wait <= 0) return this.deliver();
    // The object stays up until the report went (an evicted one would lose it).
    this.deps.waitUntil(
      new Promise<void>((resolve) => {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.deliver();
          resolve();
        }, wait);
      }),
    );
  }

  private deliver(): void {
    const owner = this.deps.owner();
    const events = this.events;
    this.events = [];
    if (!owner || events.length === 0) return;
    this.lastSent = Date.now();
    const shared = new Set(loadSessionMcpConfig(this.deps.env, this.deps.settings()).config.servers.map((s) => s.name));
    const servers: ServerReport[] = this.servers.map((s) => ({
      name: s.name,
      deployment: shared.has(s.name),
      state: s.enabled ? s.state : "off",
      ...(s.lastError ? { lastError: s.lastError } : {}),
    }));
    const report = operations(this.deps.env)
      .sessionReport({ at: this.lastSent, user: owner, session: this.deps.session, events, servers })
      .catch(() => undefined);
    this.sending = report;
    this.deps.waitUntil(report);
  }

  /** Settles once every report asked for so far reached the operations object (tests measuring a turn's writes wait on it). */
  async settled(): Promise<void> {
    await this.waiting;
    await this.sending;
  }
}
