// Questions an upstream server asks (a form elicitation, or a 2026 input_required the host
// turns into one) while a connected app's call to it runs (design §2.6). Nobody watches an
// app object's questions in a page, so a question is either passed on to the client that
// made the call — when exactly one call to that server is in flight in this object and its
// client declared form elicitation — or answered `cancel` at once, and the call's result says
// why (before, nobody answered and the client's call hung until its own timeout). The rule
// mirrors the bridge's: the call in flight asks, refused when ambiguous (SPEC §10).
//
// A passed-on question ends the client's request with `input_required`; the upstream call
// keeps running here (a "flight"), parked on the question. The client's retry carries our
// requestState — HMAC-sealed with a key of this app object, naming the flight, the question,
// the tool and a hash of its arguments — so an answer only ever reaches the question it was
// asked for; the retry then waits on the same upstream call (its result or its next question).
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { InputRequiredResult, RequestStateCodec, ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { AnswerFrame, SettingsStore } from "../approval/approvals";
import type { ServerMessage } from "../protocol/messages";
import type { Logger } from "../shared/logger";
import { hashArgs } from "./approval-ask";
import type { ServerLib } from "./server-lib";

type Asked = Extract<ServerMessage, { type: "elicitation_request" }>;
type Progress = (progress: { progress: number; total?: number; message?: string }) => void;

/** The key of the passed-on question in `inputRequests` / `inputResponses`. */
const QUESTION_KEY = "q1";
/** How long a parked question waits for the client's retry (also the state's expiry). */
const PARK_TTL_SECONDS = 600;
/** The app object's HMAC key for these states (not the approvals' key: a state of one kind is never read as the other). */
const KEY_SETTING = "upstreamStateKey";

export interface ContinueState {
  call: string;
  q: string;
  tool: string;
  argsHash: string;
}

/** What a client may answer a form question with (MCP ElicitResult content: primitives and string lists). */
const Content = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]));

/** One round of a call: its end, or a question for the client. */
export type Round = { kind: "done"; result: CallToolResult } | { kind: "failed"; error: unknown } | { kind: "ask"; question: Asked };

/** One client call to an upstream server, running in this object (across the client's rounds when it is asked). */
export class Flight {
  readonly key = crypto.randomUUID();
  /** Why a question of the server was answered `cancel` during this call (added to its result). */
  readonly notes = new Set<string>();
  /** False once the upstream call ended (its result may still wait for the client's retry). */
  running = true;
  parked?: Asked;
  private wake?: () => void;
  private sink?: Progress;
  private expiry?: ReturnType<typeof setTimeout>;
  private readonly controller = new AbortController();
  private readonly ended: Promise<Round>;

  constructor(
    readonly server: string,
    /** The client declared form elicitation: its server's questions may be passed on to it. */
    readonly canAsk: boolean,
    start: (signal: AbortSignal, onProgress: Progress) => Promise<CallToolResult>,
    private readonly questions: UpstreamQuestions,
  ) {
    this.ended = start(this.controller.signal, (progress) => this.sink?.(progress)).then(
      (result): Round => ({ kind: "done", result }),
      (error: unknown): Round => ({ kind: "failed", error }),
    );
    void this.ended.then(() => {
      this.running = false;
    });
  }

  /** Takes the server's question for the client; false when it cannot (no elicitation, or one is waiting already). */
  park(question: Asked): boolean {
    if (!this.canAsk || this.parked) return false;
    this.parked = question;
    this.wake?.();
    return true;
  }

  /** The client's answer to the parked question `requestId`: false when that is not the one parked. */
  reply(requestId: string, answer: Omit<Extract<AnswerFrame, { type: "elicitation_response" }>, "type" | "requestId">): boolean {
    if (this.parked?.requestId !== requestId) return false;
    this.parked = undefined;
    this.questions.answer({ type: "elicitation_response", requestId, ...answer });
    return true;
  }

  /**
   * One round of the client: waits for the upstream call's end or its next question, with
   * this request's cancellation and progress. A question returned leaves the call parked
   * until the client's retry (or PARK_TTL_SECONDS: then the question is cancelled and the call aborted).
   */
  async round(signal: AbortSignal, onProgress?: Progress): Promise<Round> {
    clearTimeout(this.expiry);
    this.sink = onProgress;
    const abort = () => this.controller.abort(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
    try {
      const asked = new Promise<Round>((resolve) => {
        const check = () => this.parked && resolve({ kind: "ask", question: this.parked });
        this.wake = check;
        check();
      });
      const round = await Promise.race([this.ended, asked]);
      if (round.kind === "ask") this.expiry = setTimeout(() => this.abandon(), PARK_TTL_SECONDS * 1000);
      else this.questions.ended(this);
      return round;
    } finally {
      this.wake = undefined;
      this.sink = undefined;
      signal.removeEventListener("abort", abort);
    }
  }

  /** The server's question ended without the client (its own timeout or cancel): not parked any more. */
  resolved(requestId: string): void {
    if (this.parked?.requestId === requestId) this.parked = undefined;
  }

  /** The client never came back: its question is cancelled and the upstream call aborted. */
  abandon(): void {
    clearTimeout(this.expiry);
    const parked = this.parked;
    if (parked) this.reply(parked.requestId, { action: "cancel" });
    this.controller.abort(new Error("the client did not answer its server's question"));
    this.questions.ended(this);
  }
}

export class UpstreamQuestions {
  private readonly flights = new Map<string, Flight>();
  private codec?: RequestStateCodec<ContinueState>;

  constructor(
    /** Answers an upstream question (Approvals.answer: the server's elicitation resolves with it). */
    readonly answer: (frame: AnswerFrame) => void,
    private readonly log: Logger,
  ) {}

  /** A client call to `server` starts: `start` runs the upstream call. */
  start(server: string, canAsk: boolean, start: (signal: AbortSignal, onProgress: Progress) => Promise<CallToolResult>): Flight {
    const flight = new Flight(server, canAsk, start, this);
    this.flights.set(flight.key, flight);
    return flight;
  }

  ended(flight: Flight): void {
    this.flights.delete(flight.key);
  }

  /** A frame the app's Approvals sent out: an upstream server's question (or its end). */
  heard(message: ServerMessage): void {
    if (message.type === "elicitation_resolved") {
      for (const flight of this.flights.values()) flight.resolved(message.requestId);
      return;
    }
    if (message.type !== "elicitation_request") return;
    const running = [...this.flights.values()].filter((flight) => flight.server === message.server && flight.running);
    const only = running.length === 1 ? running[0] : undefined;
    if (only && message.mode !== "url" && only.park(message)) return;
    const why =
      message.mode === "url"
        ? "it asked you to open a web page, which edgehost cannot pass on to this client"
        : running.length > 1
          ? `${running.length} calls to it were running here, so edgehost could not tell which one it asked about`
          : only?.parked
            ? "it asked again before this client answered its first question"
            : "this client cannot be asked (it did not declare form elicitation)";
    for (const flight of running) flight.notes.add(`edgehost answered a question from "${message.server}" with cancel: ${why}.`);
    this.log.info("gateway upstream question", { server: message.server, outcome: "cancel", calls: running.length });
    this.answer({ type: "elicitation_response", requestId: message.requestId, action: "cancel" });
  }

  /** The app's codec for these states, its key made once and kept in the app's storage. */
  stateCodec(lib: ServerLib, store: SettingsStore): RequestStateCodec<ContinueState> {
    if (this.codec) return this.codec;
    let key = store.getSetting<string>(KEY_SETTING);
    if (!key) {
      key = `${crypto.randomUUID()}${crypto.randomUUID()}`.replaceAll("-", "");
      store.setSetting(KEY_SETTING, key);
    }
    this.codec = lib.createRequestStateCodec<ContinueState>({ key, ttlSeconds: PARK_TTL_SECONDS });
    return this.codec;
  }

  /**
   * The flight this retry continues, when it carries a state we sealed for this very call
   * (tool and arguments), its answer passed to the parked question. `gone`: the state is
   * ours but the call is not here any more (the object was evicted, or the call ended and
   * its result was taken). Undefined: no state of ours — a fresh call.
   */
  async continued(
    lib: ServerLib,
    store: SettingsStore,
    ctx: ServerContext,
    call: { tool: string; args: Record<string, unknown> },
  ): Promise<Flight | "gone" | undefined> {
    const raw = ctx.mcpReq.requestState<unknown>();
    if (typeof raw !== "string") return undefined;
    let state: ContinueState;
    try {
      state = await this.stateCodec(lib, store).verify(raw, ctx);
    } catch {
      return undefined;
    }
    if (state.tool !== call.tool || state.argsHash !== (await hashArgs(call.args))) return undefined;
    const flight = this.flights.get(state.call);
    if (!flight) return "gone";
    // An answer counts only for the question still parked: a replayed earlier state just waits on the call again.
    const view = lib.inputResponse(ctx.mcpReq.inputResponses, QUESTION_KEY);
    if (view.kind === "elicit") {
      const content = view.action === "accept" ? Content.safeParse(view.content ?? {}) : undefined;
      if (content && !content.success) flight.reply(state.q, { action: "cancel" });
      else flight.reply(state.q, content ? { action: "accept", content: content.data } : { action: view.action });
    }
    return flight;
  }

  /** The input_required that passes `question` on to the client, with the state that brings its answer back here. */
  async ask(
    lib: ServerLib,
    store: SettingsStore,
    flight: Flight,
    question: Asked,
    call: { tool: string; args: Record<string, unknown> },
  ): Promise<InputRequiredResult> {
    const state = { call: flight.key, q: question.requestId, tool: call.tool, argsHash: await hashArgs(call.args) };
    const requestState = await this.stateCodec(lib, store).mint(state);
    // The server's own form schema, passed on as it sent it (the host's client checked it is an elicitation form).
    const requestedSchema = (question.schema ?? { type: "object", properties: {} }) as Parameters<ServerLib["inputRequired"]["elicit"]>[0]["requestedSchema"];
    const message = `"${question.server}" asks: ${question.message}`;
    return lib.inputRequired({ inputRequests: { [QUESTION_KEY]: lib.inputRequired.elicit({ message, requestedSchema }) }, requestState });
  }
}

/** The call's result with why its server's questions were answered `cancel`, where the client's model reads it. */
export function withNotes(result: CallToolResult, flight: Flight): CallToolResult {
  if (flight.notes.size === 0) return result;
  return { ...result, content: [...(result.content ?? []), ...[...flight.notes].map((text) => ({ type: "text" as const, text }))] };
}
