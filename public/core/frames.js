// What the page does with each frame the session sends (types.d.ts: the Worker's own
// schema): the state changes through state.js, the chat through chat-view.js, and the
// few things that need the socket or the composer through `actions`.
import { clearChat, endStream, markApproval, setBanner, showEntry, showPending, showStatus, showSystem, showUsage, streamText } from "../chat/chat-view.js";
import { decorateTurn, showBranches } from "../chat/branches.js";
import { forgetCatalog } from "../servers/catalog.js";
import { markResourceUpdated } from "../composer/composer-attachments.js";
import { noteFrame } from "./attention.js";
import { askApproval, closeIfShowing } from "../dialogs/dialogs.js";
import { builtRule } from "../dialogs/rule-builder.js";
import { askElicitation } from "../dialogs/elicitation-dialog.js";
import { showWaiting, waitOver } from "../dialogs/url-elicitation.js";
import { forgetAppTools } from "../chat/mcp-apps.js";
import { queuedHere, state, update } from "./state.js";
import { historyShown } from "../chat/welcome.js";
import { setOlder } from "../chat/older-history.js";
import { focusWantedMessage } from "../chat/message-focus.js";
import { showTask } from "../chat/task-card.js";
import { showSchedules } from "../chat/schedules.js";
import { noteAnsweredBy, noteWhoMayAnswer } from "../people/authors.js";
import { isOwner, mayAnswer } from "../people/roles.js";
import { noteTurnStarter } from "../people/turn-stop.js";

/** @typedef {import("./types").ServerMessage} ServerMessage */
/** @typedef {import("./types").ClientMessage} ClientMessage */

/**
 * @typedef {object} FrameActions
 * @property {(message: ClientMessage) => void} send
 * @property {() => void} flushOutbox sends the next queued message once idle
 * @property {(message: import("./types").Frame<"error">) => void} rejected the message just sent was refused
 * @property {() => void} sessionsChanged the session list may have changed (a title, the order)
 */

/** Refusals of a rule that leave its approval open (src/approval/approvals.ts). */
const RULE_REFUSALS = new Set(["rule_invalid", "too_many_rules", "account_erasing"]);

/** @param {FrameActions} actions */
export function frameHandler(actions) {
  let asking = false;
  /** @type {Map<string, import("./types").Frame<"elicitation_request">>} URL-mode questions until resolved, for their wait */
  const urlQuestions = new Map();

  /** The approval last answered with a rule, until the Worker takes it; a refusal (rule_invalid, …) asks it again with why. */
  /** @type {import("./types").Frame<"approval_request"> | null} */
  let ruled = null;
  /** @type {Map<string, string>} why the Worker refused the rule an approval was answered with */
  const refusals = new Map();
  /**
   * Approvals this page's role may not answer (a viewer's, a participant's), until answered:
   * asked here at once should the owner make this person an approver meanwhile.
   * @type {Map<string, import("./types").Frame<"approval_request">>}
   */
  const notMine = new Map();

  /** One approval dialog at a time, in the order asked. */
  async function nextApproval() {
    if (asking) return;
    const [request, ...rest] = state.approvals;
    if (!request) return;
    update({ approvals: rest });
    asking = true;
    const answer = await askApproval(request, { rules: true, refusal: refusals.get(request.callId) });
    refusals.delete(request.callId);
    const rule = answer === "rule" ? builtRule() : undefined;
    if (rule) {
      ruled = request;
      actions.send({ type: "approval", callId: request.callId, approved: true, rule });
    } else if (answer === "approve" || answer === "always" || answer === "deny") {
      actions.send({ type: "approval", callId: request.callId, approved: answer !== "deny", remember: answer === "always" });
    }
    asking = false;
    void nextApproval();
  }

  /**
   * Frames that each do one thing, by type; the switch below takes the rest. A streamed
   * token goes straight to the renderer from here (no switch before it).
   * @type {{ [K in ServerMessage["type"]]?: (message: import("./types").Frame<K>) => void }}
   */
  const oneStep = {
    text: streamText,
    status: showStatus,
    turn_start: (message) => update({ turnId: message.turnId }),
    resource_updated: (message) => markResourceUpdated(message.server, message.uri),
    task: (message) => showTask(message, actions.send),
    always_allowed: (message) => update({ alwaysAllowed: message.tools, argumentRules: message.rules ?? [] }),
    schedules: (message) => showSchedules(message.items),
    people: (message) => update({ people: message }),
    you: (message) => {
      update({ you: { key: message.key, name: message.name, role: message.role } });
      if (!mayAnswer() || notMine.size === 0) return;
      update({ approvals: [...state.approvals, ...notMine.values()] });
      notMine.clear();
      void nextApproval();
    },
  };

  /** @param {ServerMessage} message */
  return function handle(message) {
    noteFrame(message);
    // The map's type pairs each type with its frame; TS cannot follow that through the lookup.
    const step = /** @type {((message: ServerMessage) => void) | undefined} */ (oneStep[message.type]);
    if (step) return step(message);
    switch (message.type) {
      case "connection":
        // Who this page is here (a shared chat) and who else is: the people frame follows.
        notMine.clear();
        update({ model: message.model, you: message.you ?? null, people: null });
        setBanner(message.notice);
        break;
      case "history": {
        clearChat();
        for (const entry of message.entries) {
          noteTurnStarter(entry);
          showEntry(entry);
        }
        // The total counts turns older than those shown too: what the per-turn figures do not cover.
        const shown = Object.values(message.usage ?? {}).reduce(
          (n, u) => ({ inputTokens: n.inputTokens + u.inputTokens, outputTokens: n.outputTokens + u.outputTokens }),
          {
            inputTokens: 0,
            outputTokens: 0,
          },
        );
        const total = message.usageTotal ?? shown;
        update({
          usage: { ...(message.usage ?? {}) },
          usageOutside: { inputTokens: Math.max(0, total.inputTokens - shown.inputTokens), outputTokens: Math.max(0, total.outputTokens - shown.outputTokens) },
        });
        for (const [turn, used] of Object.entries(state.usage)) showUsage(turn, used);
        showBranches(message.branches);
        setOlder(message.older);
        // A message whose socket died before its echo may have arrived after all.
        const users = message.entries.filter((e) => e.kind === "user");
        const last = users[users.length - 1];
        const first = state.outbox.findIndex((m) => m.sessionId === state.sessionId);
        const queued = state.outbox[first];
        if (last && queued?.sent && last.text === queued.text) update({ outbox: state.outbox.filter((_, i) => i !== first) });
        showPending(queuedHere().map((m) => m.text));
        historyShown();
        focusWantedMessage(state.sessionId);
        actions.flushOutbox();
        break;
      }
      case "entry": {
        noteTurnStarter(message.entry);
        showEntry(message.entry);
        if (message.entry.kind !== "user") break;
        const sent = state.inFlight;
        if (sent && (sent.prompt ? Boolean(message.entry.prompt) : sent.text === message.entry.text)) update({ inFlight: null });
        actions.sessionsChanged();
        break;
      }
      case "turn_end":
        endStream();
        decorateTurn(message.turnId);
        if (message.usage && message.usage.inputTokens + message.usage.outputTokens > 0) {
          update({ usage: { ...state.usage, [message.turnId]: message.usage } });
          showUsage(message.turnId, message.usage);
        }
        update({ turnId: null, busyNote: false });
        actions.sessionsChanged();
        actions.flushOutbox();
        break;
      case "model":
        update({ model: message.choice });
        if (message.notice) showSystem(message.notice, "notice");
        break;
      case "servers":
        forgetCatalog();
        forgetAppTools();
        update({ servers: message.servers, live: true });
        break;
      case "approval_request":
        markApproval(message.callId, true);
        if (!mayAnswer()) {
          notMine.set(message.callId, message);
          noteWhoMayAnswer(message.callId);
          break;
        }
        update({ approvals: [...state.approvals, message] });
        void nextApproval();
        break;
      case "approval_resolved":
        markApproval(message.callId, false);
        notMine.delete(message.callId);
        noteAnsweredBy(message);
        if (ruled?.callId === message.callId) ruled = null;
        // Answered elsewhere (another tab): not asked here any more.
        update({ approvals: state.approvals.filter((a) => a.callId !== message.callId) });
        closeIfShowing(message.callId, "handled");
        break;
      case "elicitation_resolved":
        waitOver(message.requestId);
        urlQuestions.delete(message.requestId);
        closeIfShowing(message.requestId, "handled");
        break;
      case "elicitation_waiting": {
        // The person agreed to open the URL (here or in another tab): the question closes, the wait shows.
        const question = urlQuestions.get(message.requestId);
        closeIfShowing(message.requestId, "handled");
        // "I'm done": accept again tells the session the person finished there (a -32042 call is sent again).
        if (question)
          void showWaiting(question).then((closedWith) => {
            if (closedWith === "done") actions.send({ type: "elicitation_response", requestId: message.requestId, action: "accept" });
          });
        break;
      }
      case "elicitation_request":
        // Form questions are the owner's and approvers'; a URL one (a sign-in at the owner's server) the owner's alone.
        if (!mayAnswer() || (message.mode === "url" && !isOwner())) break;
        if (message.mode === "url") urlQuestions.set(message.requestId, message);
        void askElicitation(message).then(({ action, content }) => {
          if (action !== "handled") actions.send({ type: "elicitation_response", requestId: message.requestId, action, content });
        });
        break;
      case "error":
        // The rule an approval was answered with was refused: the question is still open, so it is asked again with why.
        if (ruled && RULE_REFUSALS.has(message.code)) {
          refusals.set(ruled.callId, message.message);
          update({ approvals: [ruled, ...state.approvals] });
          ruled = null;
          void nextApproval();
          break;
        }
        // An error outside any turn while a message waits for its echo: the server did not take it
        // (turn_in_progress, rate_limited, budget_exhausted, …); it is put back, never lost.
        if (state.inFlight && !message.turnId) actions.rejected(message);
        else showSystem(message.message, "error", message.turnId);
        break;
    }
  };
}
