// A session's turns: one at a time, admitted against the owner's spend, run by
// the orchestrator with the session as its port (entries stored and broadcast,
// text and tool status broadcast, approvals asked), ended with `turn_end`, and
// closed honestly after a restart that interrupted one. What it is given: turn-deps.ts;
// what its end tells beyond the chat (log line, operator's view, spend): turn-report.ts.
import { modelRefText } from "../llm/registry";
import type { TurnEnd, TurnUsage } from "../orchestrator/transcript";
import { runTurn } from "../orchestrator/turn";
import type { SpendDecision } from "../users/spend-ledger";
import { toWire, type ServerMessage } from "../protocol/messages";
import { EdgehostError } from "../shared/errors";
import type { TurnOpening } from "./prompt-opening";
import type { ResolvedModel } from "./session-model";
import { taskHolder } from "./tasks/session-tasks";
import { errorMessage } from "../shared/logger";
import { StreamedText, type Streamed } from "./streamed-text";
import { compactionTurn, type CompactionDeps } from "./compaction-turn";
import { ModelView } from "./model-view";
import { speakersNote } from "./speakers";
import { summarySection } from "../orchestrator/compaction";
import { TurnTrace } from "./turn-trace";
import { addUsage, turnPort } from "./turn-port";
import { closeInterrupted } from "./interrupted-turn";
import { DeferredOpening } from "./deferred-opening";
import { firstConversation } from "./first-conversation";
import { reportTurnEnd } from "./turn-report";
import type { TurnOrigin, TurnRunnerDeps } from "./turn-deps";

export type { TurnOrigin, TurnRunnerDeps } from "./turn-deps";

const TURN_KEY = "runningTurn";

/** `dropped`: the session is being deleted (drop); `opening`: its writes, once admitted (deferred-opening.ts); `ended`: the running turn's end. */
type RunningTurn = { id: string; controller: AbortController; trace: TurnTrace; dropped?: boolean; opening?: DeferredOpening; ended?: Promise<void> };

export class TurnRunner {
  private current?: RunningTurn;
  private reported = false;
  private readonly streamed: StreamedText;
  private readonly view: ModelView;

  private readonly compaction: CompactionDeps;

  constructor(private readonly deps: TurnRunnerDeps) {
    this.streamed = new StreamedText(deps.store);
    this.view = new ModelView(deps.store, deps.attachedParts, deps.speakers);
    this.compaction = { view: this.view, store: deps.store, record: deps.record, broadcast: deps.broadcast, log: deps.log };
  }

  /** The answer the running turn is streaming, as far as it got (for a page that joins now). */
  streamedSoFar(): Streamed | undefined {
    return this.current ? this.streamed.soFar() : undefined;
  }

  get running(): string | undefined {
    return this.current?.id;
  }

  /** The running turn, its opening written first: for an entry recorded in it from outside the turn (an MCP server's notice). */
  openedTurn(): string | undefined {
    this.current?.opening?.now();
    return this.current?.id;
  }

  /**
   * Starts a turn for `text`, or for what `open` prepares (attached resources read, a
   * prompt fetched: before the turn is admitted, so a refused one costs nothing); an
   * error for the sender when it cannot start.
   */
  async start(input: string | (() => Promise<TurnOpening>), origin: TurnOrigin = {}): Promise<Extract<ServerMessage, { type: "error" }> | undefined> {
    // One turn at a time; a message during a turn is rejected, not queued (docs/websocket-protocol.md).
    if (this.current) return { type: "error", code: "turn_in_progress", message: "A turn is still running: wait for it to end or cancel it." };
    // Claimed before the first await: a second message arriving meanwhile sees a turn.
    const turn: RunningTurn = { id: crypto.randomUUID(), controller: new AbortController(), trace: new TurnTrace() };
    this.current = turn;
    let spend: SpendDecision;
    let opening: TurnOpening;
    let model: ResolvedModel;
    try {
      opening = typeof input === "string" ? { entries: [{ kind: "user", text: input }], title: input } : await input();
      model = await this.deps.model();
      spend = await this.deps.admit(model.ok && model.ownKey);
      turn.trace.mark("admitted");
    } catch (error) {
      this.current = undefined;
      // A typed refusal (unknown server, missing argument...) goes to the sender; the session goes on.
      if (error instanceof EdgehostError) return toWire.error(error);
      throw error;
    }
    // Deleted while it opened (Delete my data racing it): it never starts, so nothing of it is stored after the delete.
    if (turn.dropped) {
      this.current = undefined;
      return { type: "error", code: "cancelled", message: "The conversation was deleted." };
    }
    if (!spend.ok) {
      this.current = undefined;
      this.deps.log.warn("turn refused", { ...logged(origin), code: spend.code });
      return { type: "error", code: spend.code, message: spend.message };
    }
    const { id: turnId } = turn;
    const { tree } = this.deps.store;
    const parent = origin.branchOf ? tree.parentOf(origin.branchOf) : (tree.leaf() ?? null);
    if (!model.ok) {
      this.open(turnId, parent, opening, origin);
      this.current = undefined;
      this.deps.record({ turnId, kind: "notice", text: model.notice });
      this.deps.broadcast({ type: "turn_end", turnId, reason: "no_model" });
      return undefined;
    }
    // Written once the model request is on its way, so that request waits for no commit (deferred-opening.ts).
    const deferred = new DeferredOpening(() => {
      this.open(turnId, parent, opening, origin);
      if (model.notice) this.deps.record({ turnId, kind: "notice", text: model.notice });
      this.deps.store.setSetting(TURN_KEY, turnId);
      this.deps.broadcast({ type: "turn_start", turnId });
    }, this.deps.store);
    turn.opening = deferred;
    // A new version of a turn (regenerate, edit) opens first, as before: its path changes under the model's view.
    if (origin.branchOf) deferred.now();
    // Its MCP requests carry this trace id (the turn id's hex digits); the bridge's lines name it.
    // At debug: `turn ended` (info) says all an operator needs of a turn, in one line.
    this.deps.log.debug("turn started", { ...logged(origin), turnId, trace: turnId.replace(/-/g, "") });
    turn.ended = this.deps
      .keepAliveWhile(() => this.run(turnId, model, { ...turn, opening: deferred }, origin, opening))
      .catch((error: unknown) => this.deps.log.error("turn failed", { ...logged(origin), turnId, error: errorMessage(error) }));
    return undefined;
  }

  /** The turn's node in the tree and its opening entries (stored and sent), the session's title and config problems. */
  private open(turnId: string, parent: string | null, opening: TurnOpening, origin: TurnOrigin): void {
    this.deps.store.tree.begin(turnId, parent);
    // Pages show the new path (the old version of the turn leaves it) before the turn's entries arrive.
    if (origin.branchOf) this.deps.branched?.();
    for (const entry of opening.entries) this.deps.record({ turnId, ...entry });
    this.deps.touched(opening.title);
    // Reported once per wake-up, in the conversation where the user sees it.
    if (!this.reported) for (const problem of this.deps.config().problems) this.deps.record({ turnId, kind: "notice", text: `Configuration: ${problem}.` });
    this.reported = true;
  }

  /**
   * The session is being deleted: the running turn is cancelled and waited for (at most
   * `waitMs`), so it records nothing after the history is cleared; one still opening never starts.
   */
  async drop(reason: string, waitMs = 10_000): Promise<void> {
    const turn = this.current;
    if (!turn) return;
    turn.dropped = true;
    turn.opening?.skip();
    turn.controller.abort(reason);
    if (!turn.ended) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([turn.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  cancel(turnId?: string, reason = "cancelled by the user"): void {
    if (this.current && (!turnId || turnId === this.current.id)) this.current.controller.abort(reason);
  }

  /** The object was evicted or restarted mid-turn: say so instead of leaving the turn open. */
  recoverInterrupted(): void {
    const interrupted = this.deps.store.getSetting<string>(TURN_KEY);
    if (!interrupted) return;
    this.deps.store.setSetting(TURN_KEY, undefined);
    closeInterrupted(interrupted, { store: this.deps.store, record: this.deps.record, streamed: this.streamed });
  }

  private async run(
    turnId: string,
    model: Extract<ResolvedModel, { ok: true }>,
    { controller, trace, opening }: RunningTurn & { opening: DeferredOpening },
    origin: TurnOrigin,
    question: TurnOpening,
  ): Promise<void> {
    const started = Date.now();
    let reason: TurnEnd = "error";
    let usage: TurnUsage | undefined;
    let failure: { code: string; message: string } | undefined;
    const { settings } = this.deps.config();
    // Whatever the turn stores or sends opens it first (its question before its answer); a dropped one stores nothing.
    const record = opening.first(this.deps.record);
    const broadcast = opening.first(this.deps.broadcast);
    try {
      const mcp = this.deps.mcp();
      // Every MCP request of this turn carries its trace (the bridge's log lines name it too).
      mcp.traceTurn(turnId);
      await mcp.prepareTurn();
      const first = { turnId, provider: model.provider, opening, question, signal: controller.signal, budget: settings.HISTORY_TOKEN_BUDGET };
      const { conversation, compacted } = await firstConversation(this.compaction, first);
      const view = this.view.history();
      const askedBy = origin.scheduleId
        ? { kind: "schedule" as const, scheduleId: origin.scheduleId }
        : { kind: "model" as const, ...(origin.author ? { person: origin.author } : {}) };
      const port = turnPort({ ...this.deps, record, broadcast, streamed: this.streamed }, turnId, controller.signal, modelRefText(model.choice), askedBy);
      const outcome = await runTurn({
        turnId,
        provider: trace.provider(opening.afterRequest(model.provider)),
        // A turn that started from last time's tools (its connections still opening) calls once they are handed over.
        host: {
          callTool: async (name, args, options) => {
            const result = await (await mcp.readyHost()).callTool(name, args, { ...options, ...taskHolder(this.deps.tasks?.(), turnId, options) });
            trace.toolDone();
            return result;
          },
        },
        tools: () => mcp.tools(),
        guides: await mcp.guides(),
        history: view.entries,
        conversation,
        port: { ...port, approve: opening.after(port.approve) },
        signal: controller.signal,
        limits: { maxSteps: settings.MAX_STEPS, tokenBudget: settings.HISTORY_TOKEN_BUDGET, toolResultChars: settings.TOOL_RESULT_CHARS },
        systemExtra:
          [
            settings.SYSTEM_PROMPT,
            view.summary?.text ? summarySection(view.summary.text) : undefined,
            // Several people spoke: who owns the chat, and that only edgehost's [Name] says who wrote (speakers.ts).
            this.deps.speakers && this.view.labelled(question.entries) ? speakersNote(this.deps.speakers()) : undefined,
          ]
            .filter(Boolean)
            .join("\n\n") || undefined,
        systemPersonal: this.deps.personal?.(),
      });
      reason = outcome.reason;
      usage = addUsage(outcome.usage, compacted);
      if (reason === "cancelled") record({ turnId, kind: "notice", text: "Cancelled." });
    } catch (error) {
      const wire = toWire.error(error, turnId);
      this.deps.log[wire.code === "internal" ? "error" : "warn"]("turn failed", { ...logged(origin), turnId, code: wire.code, error: errorMessage(error) });
      record({ turnId, kind: "error", text: wire.code === "internal" ? "Unexpected error: the turn failed." : wire.message });
      broadcast(wire);
      failure = { code: wire.code, message: wire.code === "internal" ? "the turn failed" : wire.message };
    } finally {
      opening.now();
      this.deps.mcp().traceTurn(undefined);
      this.streamed.settle();
      this.current = undefined;
      if (!opening.skipped) {
        this.deps.store.setSetting(TURN_KEY, undefined);
        if (usage && usage.inputTokens + usage.outputTokens > 0) this.deps.store.recordUsage(turnId, usage);
        this.deps.broadcast({ type: "turn_end", turnId, reason, usage });
      }
      trace.mark("ended");
      await reportTurnEnd(this.deps, { turnId, origin, model, reason, usage, failure, ms: Date.now() - started, phases: trace.phases() });
    }
  }

  /** `/compact`: every turn so far folded into one summary now, as a turn of its own (admitted, cancellable). */
  async compactNow(origin: TurnOrigin = {}): Promise<Extract<ServerMessage, { type: "error" }> | undefined> {
    if (this.current) return { type: "error", code: "turn_in_progress", message: "A turn is still running: wait for it to end or cancel it." };
    const { settings } = this.deps.config();
    const turn: RunningTurn = { id: crypto.randomUUID(), controller: new AbortController(), trace: new TurnTrace() };
    this.current = turn;
    // The session's model summarizes, on the key it would answer with.
    const model = await this.deps.model().catch(() => undefined);
    if (!model?.ok) {
      this.current = undefined;
      return { type: "error", code: "no_model", message: model?.notice ?? "No model is configured." };
    }
    const spend = await this.deps.admit(model.ownKey).catch(() => undefined);
    if (!spend?.ok) {
      this.current = undefined;
      return spend && !spend.ok ? { type: "error", code: spend.code, message: spend.message } : { type: "error", code: "internal", message: "internal error" };
    }
    this.deps.broadcast({ type: "turn_start", turnId: turn.id });
    void this.deps.keepAliveWhile(async () => {
      let usage: TurnUsage | undefined;
      try {
        usage = await compactionTurn(this.compaction, { ...turn, requestId: origin.requestId }, model.provider, settings.HISTORY_TOKEN_BUDGET);
      } finally {
        this.current = undefined;
      }
      if (usage) await this.deps.used(usage, model.ownKey).catch(() => undefined);
    });
    return undefined;
  }
}

/** A turn's origin as its log lines carry it: without the author (a person's name is not the log's business). */
function logged(origin: TurnOrigin): Omit<TurnOrigin, "author"> {
  const { author: _author, ...rest } = origin;
  return rest;
}
