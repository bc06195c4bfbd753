// Types for the page's JSDoc, taken from the zod schemas the Worker validates with
// (src/protocol/messages.ts), so the page and the session cannot drift apart unnoticed:
// `npm run typecheck` checks the page's modules against them (public/tsconfig.json).
import type { ClientMessage, FileRef, HistoryEntry, ModelChoiceFrame, ModelOption, ServerMessage, Usage } from "../../src/protocol/messages";

export type { ClientMessage, FileRef, HistoryEntry, ModelOption, ServerMessage, Usage };
/** An argument rule as the page lists it (docs/rules.md). */
export type RuleView = import("../../src/protocol/messages").RuleView;
/** A session's model and its settings, as `set_model` and `model` carry it. */
export type ModelChoice = ModelChoiceFrame;

/** One frame the session sends, by its `type`. */
export type Frame<T extends ServerMessage["type"]> = Extract<ServerMessage, { type: T }>;
/** One frame the page sends, by its `type`. */
export type Outgoing<T extends ClientMessage["type"]> = Extract<ClientMessage, { type: T }>;
/** A server of the session, as the `servers` frame lists it. */
export type SessionServer = Frame<"servers">["servers"][number];
