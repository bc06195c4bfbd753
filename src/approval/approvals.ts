// Where tool approval is decided, in one place: the policy (TOOL_APPROVAL,
// mcp.json's alwaysAllow, the session's "always allow" memory), and the questions
// put to the user — tool approvals, sampling approvals and elicitations — with
// their answers. Answers come only through `answer()`, which the session calls
// for frames from its owner's sockets.
import type { ElicitResult } from "@modelcontextprotocol/client";
import type { ApprovalDecision, ApprovalQuestion } from "../orchestrator/transcript";
import type { ClientMessage, PersonRef, RuleSpec, ServerMessage } from "../protocol/messages";
import { type ArgumentRule, makeRule, ruleView } from "./argument-rules";
import { type DecisionSources, decide, type Unasked } from "./decision";
import { OpenQuestions } from "./questions";
import { OwnerRules, type OwnerRulesAccount } from "./owner-rules";
import { ChatRules } from "./rule-store";
import { UrlWaits } from "./url-waits";

const ALWAYS_KEY = "alwaysAllowed";

export interface SettingsStore {
  getSetting<T>(key: string): T | undefined;
  /** `json`: the value as JSON, when the caller has it already (it is not made again). */
  setSetting(key: string, value: unknown, json?: string): void;
}

export interface ApprovalDeps {
  /** TOOL_APPROVAL: off means every tool runs without asking. */
  required: boolean;
  /** mcp.json's `alwaysAllow` of a server. */
  alwaysAllow: (server: string) => readonly string[];
  store: SettingsStore;
  broadcast: (message: ServerMessage) => void;
  /** A scheduled run's pre-granted tools (src/session/schedules/): true when `turnId` may call `server.tool` without asking. */
  granted?: (turnId: string, server: string, tool: string) => boolean;
  /** RULES_PER_CHAT: how many argument rules this chat keeps. */
  rulesPerChat?: number;
  /** The chat owner's account, for their argument rules for all chats (owner-rules.ts); never anyone else's. */
  ownerAccount?: () => OwnerRulesAccount | undefined;
  /** How long a question of turn `turnId` (null: none named) waits before it is declined; undefined: questions.ts's 10 min. */
  waitMs?: (turnId: string | null) => number | undefined;
}

type AnswerRefusal = { ok: false; code: "unknown_approval" | "unknown_elicitation" | "rule_invalid" | "too_many_rules" | "account_erasing"; message: string };

type Question = Extract<ServerMessage, { type: "approval_request" | "elicitation_request" }>;
/** An approval's answer says who gave it and where, for the audit trail (absent `by`: the owner; absent `via`: their page). */
type Answer = { kind: "approval"; approved: boolean; remember: boolean; via?: "notification"; by?: PersonRef } | { kind: "elicitation"; result: ElicitResult };
export type AnswerFrame = Extract<ClientMessage, { type: "approval" | "elicitation_response" }>;

const DECLINED: Answer = { kind: "approval", approved: false, remember: false };

export class Approvals {
  private readonly open = new OpenQuestions<Question, Answer>();
  /** URL-mode questions the person agreed to, while their servers are awaited. */
  readonly urlWaits: UrlWaits;
  /** This chat's argument rules ("write_file when path is under notes/"). */
  readonly rules: ChatRules;
  /** The owner's rules for all their chats, as this chat last heard them. */
  readonly mine: OwnerRules;

  constructor(private readonly deps: ApprovalDeps) {
    this.rules = new ChatRules(deps.store, deps.rulesPerChat ?? 50);
    this.mine = new OwnerRules(deps.store, deps.ownerAccount ?? (() => undefined), () => deps.broadcast(this.alwaysAllowedFrame()));
    this.urlWaits = new UrlWaits((message) => deps.broadcast(message));
  }

  /**
   * True when a call asks the person (decision.ts). Without `args` (a tool listing) only the
   * tool-wide policy is consulted: an argument rule may still let a given call run.
   */
  needsApproval(server: string, tool: string, args?: Record<string, unknown>): boolean {
    return this.decide({ server, tool, arguments: args ?? {}, turnId: null }, args !== undefined) === undefined;
  }

  /** The decision order for one call, without asking anyone; undefined means the person is asked. */
  decide(call: Parameters<typeof decide>[1], withRules = true): Unasked | undefined {
    const sources: DecisionSources = {
      required: this.deps.required,
      alwaysAllow: this.deps.alwaysAllow,
      remembered: () => this.remembered(),
      ...(this.deps.granted ? { granted: this.deps.granted } : {}),
      ...(withRules ? { rules: (server, tool, args) => this.rules.match(server, tool, args) ?? this.mine.match(server, tool, args) } : {}),
    };
    return decide(sources, call);
  }

  /** "Always allow" for this session: `qualified` is `{server}.{tool}`. Every page of the session hears it. */
  remember(qualified: string): void {
    const always = new Set(this.remembered());
    always.add(qualified);
    this.deps.store.setSetting(ALWAYS_KEY, [...always]);
    this.deps.broadcast(this.alwaysAllowedFrame());
  }

  /** Takes an "Always allow" back: the tool asks again from its next call. False when it was not remembered. */
  revoke(qualified: string): boolean {
    const always = this.remembered();
    if (!always.includes(qualified)) return false;
    const left = always.filter((name) => name !== qualified);
    this.deps.store.setSetting(ALWAYS_KEY, left.length > 0 ? left : undefined);
    this.deps.broadcast(this.alwaysAllowedFrame());
    return true;
  }

  /** What the page lists as this session's always-allowed tools (mcp.json's own `alwaysAllow` is the deployment's, not listed). */
  alwaysAllowedFrame(): Extract<ServerMessage, { type: "always_allowed" }> {
    const rules = [...this.rules.list(), ...this.mine.list()].map(ruleView);
    return { type: "always_allowed", tools: [...this.remembered()].sort(), ...(rules.length > 0 ? { rules } : {}) };
  }

  /** Takes an argument rule back (this chat's, else the owner's for all chats): the next matching call asks again. False when there is none with that id. */
  async revokeRule(id: string): Promise<boolean> {
    if (this.rules.revoke(id)) {
      this.deps.broadcast(this.alwaysAllowedFrame());
      return true;
    }
    // The owner's list changed: OwnerRules tells the page.
    return this.mine.revoke(id);
  }

  forget(): void {
    this.deps.store.setSetting(ALWAYS_KEY, undefined);
    this.rules.forget();
  }

  /**
   * Runs the policy for one call; asks the user when it says so. False when denied or cancelled.
   * `fromApp`: an MCP App asks, not the model (the page says so).
   */
  async approveTool(turnId: string | null, call: ApprovalQuestion, signal: AbortSignal, fromApp = false): Promise<boolean> {
    return (await this.decideTool(turnId, call, signal, fromApp)).allowed;
  }

  /** The same, saying how it was decided (ApprovalDecision), for the turn and the audit trail. */
  async decideTool(turnId: string | null, call: ApprovalQuestion, signal: AbortSignal, fromApp = false): Promise<ApprovalDecision> {
    // A turn's calls have the rules its admission brought; the console's and apps' ask the account (owner-rules.ts).
    if (turnId === null) await this.mine.refresh();
    const unasked = this.decide({ server: call.server, tool: call.tool, arguments: call.arguments, turnId });
    if (unasked) return unasked;
    const question = {
      type: "approval_request",
      turnId,
      callId: call.callId,
      kind: "tool",
      server: call.server,
      tool: call.tool,
      arguments: call.arguments,
    } as const;
    const answer = await this.ask(fromApp ? { ...question, fromApp } : question, DECLINED, signal);
    const allowed = answer.kind === "approval" && answer.approved;
    // The fallback itself (not an answer made of it): nobody answered before the question's time ran out.
    const unanswered = answer === DECLINED && !signal.aborted;
    const result = allowed ? "allowed" : signal.aborted ? "cancelled" : unanswered ? "timed_out" : "denied";
    if (answer.kind !== "approval" || (result !== "allowed" && result !== "denied")) return { allowed, how: "asked", answer: result };
    return { allowed, how: "asked", answer: result, via: answer.via ?? "page", ...(answer.by ? { by: answer.by } : {}) };
  }

  async approveSampling(server: string, prompt: string, signal: AbortSignal): Promise<boolean> {
    const id = crypto.randomUUID();
    const answer = await this.ask({ type: "approval_request", turnId: null, callId: id, kind: "sampling", server, prompt }, DECLINED, signal);
    return answer.kind === "approval" && answer.approved;
  }

  async elicit(server: string, message: string, schema: Record<string, unknown>, signal: AbortSignal): Promise<ElicitResult> {
    const requestId = crypto.randomUUID();
    const answer = await this.ask(
      { type: "elicitation_request", requestId, server, message, schema },
      { kind: "elicitation", result: { action: "cancel" } },
      signal,
    );
    this.deps.broadcast({ type: "elicitation_resolved", requestId });
    return answer.kind === "elicitation" ? answer.result : { action: "cancel" };
  }

  /**
   * A URL-mode elicitation (the caller checked that `url` is http or https): the page shows the
   * server, the message and the URL's host, and opens the URL only once the person agrees.
   * `accept` (they agreed to go) leaves the question waiting for the server (url-waits.ts).
   */
  async elicitUrl(server: string, message: string, url: URL, elicitationId: string | undefined, signal: AbortSignal): Promise<ElicitResult> {
    return { action: (await this.askUrl(server, message, url, elicitationId, signal)).action };
  }

  /**
   * The same question for a call the server refused until the person finished at `url`
   * (-32042): resolves once they agreed and the server said it is complete, or with why not.
   */
  async urlRequired(
    server: string,
    message: string,
    url: URL,
    elicitationId: string,
    signal?: AbortSignal,
  ): Promise<true | "decline" | "cancel" | "not finished"> {
    const asked = await this.askUrl(server, message, url, elicitationId, signal, true);
    if (!asked.waited) return asked.action === "decline" ? "decline" : "cancel";
    return (await asked.waited) || "not finished";
  }

  private async askUrl(server: string, message: string, url: URL, elicitationId: string | undefined, signal?: AbortSignal, held = false) {
    // The server asks again (a 2026 round that came back still needing the person): its earlier wait is over.
    this.urlWaits.settled(server);
    const question = { type: "elicitation_request", requestId: crypto.randomUUID(), server, message, mode: "url", url: url.href, host: url.host } as const;
    const answer = await this.ask(question, { kind: "elicitation", result: { action: "cancel" } }, signal);
    const action = answer.kind === "elicitation" ? answer.result.action : "cancel";
    if (action === "accept") return { action, waited: this.urlWaits.start(question, elicitationId, signal, held) };
    this.deps.broadcast({ type: "elicitation_resolved", requestId: question.requestId });
    return { action };
  }

  /** Takes the user's answer; an error message when nothing waits for it. `via`: a notification's action, not a page; `by`: who answered, in a shared chat. */
  answer(frame: AnswerFrame, via?: "notification", by?: PersonRef): { ok: true } | AnswerRefusal {
    const id = frame.type === "approval" ? frame.callId : frame.requestId;
    const question = this.open.get(id);
    if (frame.type === "approval") {
      if (question?.type !== "approval_request") return { ok: false, code: "unknown_approval", message: `no pending approval ${id}` };
      if (frame.approved && frame.rule) {
        // Kept before the answer: a rule that cannot be made leaves the question open for another answer.
        const kept = this.keepRule(question, frame.rule);
        if (kept) return kept;
      }
      if (frame.approved && frame.remember && question.kind === "tool" && question.tool) this.remember(`${question.server}.${question.tool}`);
      this.open.answer(id, { kind: "approval", approved: frame.approved, remember: frame.remember ?? false, ...(via ? { via } : {}), ...(by ? { by } : {}) });
      this.deps.broadcast({ type: "approval_resolved", callId: id, approved: frame.approved, ...(via ? { via } : {}), ...(by ? { by } : {}) });
      return { ok: true };
    }
    if (question?.type !== "elicitation_request") {
      // A URL-mode question already agreed to and waiting: `accept` again is "I'm done there", anything else gives up.
      if (this.urlWaits.finish(id, frame.action === "accept")) return { ok: true };
      return { ok: false, code: "unknown_elicitation", message: `no pending elicitation ${id}` };
    }
    // A URL-mode answer carries nothing but the action (MCP: content is omitted).
    const result: ElicitResult =
      frame.action === "accept" && question.mode !== "url" ? { action: "accept", content: frame.content ?? {} } : { action: frame.action };
    this.open.answer(id, { kind: "elicitation", result });
    return { ok: true };
  }

  /**
   * The same, for a page's answer that may keep a rule for all the owner's chats: made and
   * checked here against the call, kept in their account, then the answer given.
   */
  async answerFromPage(frame: AnswerFrame, by?: PersonRef): Promise<{ ok: true } | AnswerRefusal> {
    if (frame.type !== "approval" || !frame.approved || frame.rule?.scope !== "all") return this.answer(frame, undefined, by);
    const question = this.open.get(frame.callId);
    if (question?.type !== "approval_request") return { ok: false, code: "unknown_approval", message: `no pending approval ${frame.callId}` };
    const made = this.madeRule(question, frame.rule);
    if (!made.ok) return made;
    const refused = await this.mine.add(made.rule);
    if (refused) return { ok: false, ...refused };
    const { rule: _kept, ...answer } = frame;
    return this.answer(answer, undefined, by);
  }

  /** Every question still open, for a socket that connects mid-question. */
  pending(): ServerMessage[] {
    return [...this.open.questions(), ...this.urlWaits.pending()];
  }

  private ask(question: Question, fallback: Answer, signal?: AbortSignal): Promise<Answer> {
    const id = question.type === "approval_request" ? question.callId : question.requestId;
    // Refused unasked (OpenQuestions.ask): the page must not show a second question under an open id.
    if (this.open.has(id)) return Promise.resolve(fallback);
    const turnId = question.type === "approval_request" ? question.turnId : null;
    const answered = this.open.ask(id, question, fallback, signal, this.deps.waitMs?.(turnId));
    this.deps.broadcast(question);
    return answered;
  }

  private keepRule(question: Question & { type: "approval_request" }, spec: RuleSpec): AnswerRefusal | undefined {
    // "all my chats" is kept in the owner's account, which takes a wait: answerFromPage (a page's answer) does that.
    if (spec.scope !== "chat") return { ok: false, code: "rule_invalid", message: "a rule for all your chats is made from a chat's page" };
    const made = this.madeRule(question, spec);
    if (!made.ok) return made;
    if (!this.rules.add(made.rule)) return { ok: false, code: "too_many_rules", message: `this chat has ${this.rules.max} rules already: revoke one first` };
    this.deps.broadcast(this.alwaysAllowedFrame());
    return undefined;
  }

  private madeRule(question: Question & { type: "approval_request" }, spec: RuleSpec): { ok: true; rule: ArgumentRule } | AnswerRefusal {
    if (question.kind !== "tool" || !question.tool || !question.arguments)
      return { ok: false, code: "rule_invalid", message: "only a tool call's approval can make an argument rule" };
    const made = makeRule(spec, { server: question.server, tool: question.tool, arguments: question.arguments }, crypto.randomUUID(), Date.now());
    return made.ok ? made : { ok: false, code: "rule_invalid", message: made.why };
  }

  private remembered(): string[] {
    return this.deps.store.getSetting<string[]>(ALWAYS_KEY) ?? [];
  }
}
