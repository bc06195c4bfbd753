// The composer: a message is sent when the socket is up and no turn runs; typed while
// disconnected it is queued (state.outbox) and sent on reconnect; refused by the server
// it goes back to the queue or the box, never lost. Also the `@` resource picker, the
// `/` prompts, Enter to send and Escape or Stop to cancel the running turn.
import { showPending, showSystem } from "../chat/chat-view.js";
import { restoreAttachments, takeAttachments } from "./composer-attachments.js";
import { filesUploading, hasFiles, restoreFiles, setupFileAttachments, takeFiles } from "./file-attachments.js";
import { showMentions, startMention } from "./composer-mentions.js";
import { hidePicker, pickerKey } from "./composer-picker.js";
import { showPrompts, slashCommand } from "./composer-prompts.js";
import { fitComposer } from "./composer-grow.js";
import { byId } from "../core/dom.js";
import { modelCommand } from "./model-picker.js";
import { dequeue, enqueue, queuedHere, requeue, state, update } from "../core/state.js";
import { openScheduleForm, splitScheduleCommand } from "../chat/schedules.js";
import { presetCommand } from "../account/presets.js";
import { maySend } from "../people/roles.js";

/** @typedef {import("../core/state.js").Attachment} Attachment */
/** @typedef {import("../core/types").ClientMessage} ClientMessage */

/**
 * @param {{ send: (message: ClientMessage) => void, isOpen: () => boolean, waiting: () => boolean, reconnect: () => void }} socket
 */
export function setupComposer(socket) {
  const input = byId("composer-input");
  const pending = () => showPending(queuedHere().map((m) => m.text));

  /**
   * `message` with the chips taken from the box, as the frame names them ({server, uri}).
   * @template {ClientMessage} M
   * @param {M} message
   * @param {Attachment[]} taken
   * @returns {M}
   */
  const withAttachments = (message, taken) => (taken.length > 0 ? { ...message, attachments: taken.map(({ server, uri }) => ({ server, uri })) } : message);
  /**
   * A message or prompt frame with the files taken from the box, by id.
   * @template {ClientMessage} M
   * @param {M} message
   * @param {import("../core/types").FileRef[]} files
   * @returns {M}
   */
  const withFiles = (message, files) => (files.length > 0 ? { ...message, files: files.map((f) => f.id) } : message);

  /**
   * Sends a message or `/` prompt frame with its resources and files, and remembers it until
   * its echo (`inFlight`: put back if the server refuses it or the socket dies first).
   * @param {ClientMessage & { type: "message" | "prompt" }} frame
   * @param {{ text: string, queued: boolean, prompt?: boolean }} sent
   * @param {Attachment[]} taken
   * @param {import("../core/types").FileRef[]} files
   */
  function start(frame, sent, taken, files) {
    if (!state.sessionId) return;
    update({ inFlight: { ...sent, sessionId: state.sessionId, taken, files } });
    socket.send(withFiles(withAttachments(frame, taken), files));
  }

  /** @param {string} text @param {boolean} queued @param {Attachment[]} [taken] @param {import("../core/types").FileRef[]} [files] */
  const sendMessage = (text, queued, taken = [], files = []) => start({ type: "message", text }, { text, queued }, taken, files);

  /**
   * Whether a turn may start now: none runs or waits for its echo (else the busy note, the
   * text stays in the box) and no file is still uploading (else a notice). Enter and a `/`
   * prompt ask the same.
   */
  function canStart() {
    if (state.turnId || state.inFlight) {
      update({ busyNote: true });
      return false;
    }
    if (filesUploading()) {
      showSystem("Wait for the files to finish uploading, then send.", "notice");
      return false;
    }
    return true;
  }

  /** A `/` prompt chosen in the box starts a turn (with the resources and files attached meanwhile). */
  function startPrompt(/** @type {{ server: string, name: string, arguments?: Record<string, string> }} */ prompt) {
    // A prompt is never queued: with no socket it waits like a running turn.
    if (!socket.isOpen() || !state.sessionId) return void update({ busyNote: true });
    if (!canStart()) return;
    const files = takeFiles() ?? [];
    start({ type: "prompt", ...prompt }, { text: "", queued: false, prompt: true }, takeAttachments(), files);
  }

  /** Sends the next queued message of this session once connected and idle. */
  function flushOutbox() {
    if (!socket.isOpen() || state.turnId || state.inFlight) return;
    const next = dequeue();
    if (!next) return;
    pending();
    sendMessage(next.text, true, next.taken, next.files);
  }

  /** The server refused the message just sent: queue it again or put it back in the box. */
  function rejected(/** @type {import("../core/types").Frame<"error">} */ message) {
    const sent = state.inFlight;
    if (!sent) return;
    update({ inFlight: null });
    if (message.code === "turn_in_progress" && sent.queued) {
      requeue({ text: sent.text, sessionId: sent.sessionId, taken: sent.taken, files: sent.files });
      pending();
      return;
    }
    restoreAttachments(sent.taken);
    restoreFiles(sent.files);
    if (!input.value.trim()) input.value = sent.text;
    fitComposer();
    if (message.code === "turn_in_progress") update({ busyNote: true });
    else showSystem(message.message, "error");
  }

  /** `/model`'s way to choose, and to answer in the chat. */
  const modelActions = {
    choose: (/** @type {{provider: string, model: string}} */ ref) => socket.send({ type: "set_model", ...ref }),
    say: (/** @type {string} */ line, /** @type {"notice" | "error" | undefined} */ kind) => showSystem(line, kind),
    /** `/preset`'s: apply one on this chat's socket, answer in the chat. */
    presetActions: {
      send: socket.send,
      say: (/** @type {string} */ line, /** @type {"notice" | "error" | undefined} */ kind) => showSystem(line, kind),
    },
  };

  /** The page's own `/` commands. */
  const commands = [
    {
      name: "model",
      detail: "Which model this chat uses and which are offered; /model provider/model chooses one",
      run: () => void modelCommand("/model", modelActions),
    },
    {
      name: "schedule",
      detail: "Run a message at set times (/schedule weekdays 08:00 summarise new files): opens the form, prefilled",
      run: () => openScheduleForm(),
    },
    {
      name: "preset",
      detail: "Apply one of your presets (/preset Research): its model, servers and instructions; /preset alone lists them",
      run: () => void presetCommand("/preset", modelActions.presetActions),
    },
    {
      name: "compact",
      detail: "Summarize the conversation so far; the model then reads the summary instead of the old turns",
      run: () => {
        if (!state.turnId && socket.isOpen()) socket.send({ type: "compact" });
      },
    },
  ];

  byId("composer").addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    // A viewer's box is read-only (people/roles.js): nothing of theirs is sent.
    if (!maySend()) return;
    const text = input.value.trim();
    // A message needs words: files alone would leave the model guessing what is asked.
    if (!text && hasFiles()) showSystem("Add a message to send with your files.", "notice");
    if (!text || !state.sessionId) return;
    // `/schedule <when> <text>`: the Schedules form, prefilled; never a message.
    if (/^\/schedule(\s|$)/i.test(text)) {
      openScheduleForm(splitScheduleCommand(text.slice("/schedule".length)));
      input.value = "";
      hidePicker();
      return;
    }
    // `/preset [name]`: lists the person's presets or applies one; never a message.
    if (presetCommand(text, modelActions.presetActions)) {
      input.value = "";
      hidePicker();
      return;
    }
    // `/model`: the session's model, never a message (allowed during a turn: it applies to the next).
    if (modelCommand(text, modelActions)) {
      input.value = "";
      hidePicker();
      return;
    }
    // One turn at a time, and files still uploading hold the message back: the text stays in the box.
    if (!canStart()) return;
    const files = takeFiles() ?? [];
    input.value = "";
    hidePicker();
    const taken = takeAttachments();
    if (!socket.isOpen()) {
      enqueue({ text, sessionId: state.sessionId, taken, files });
      pending();
      // Waiting for the next retry: try now (the backoff goes on if it fails).
      if (state.active && socket.waiting()) socket.reconnect();
      return;
    }
    sendMessage(text, false, taken, files);
  });
  // The `@` resource picker and the `/` prompt list (before the box's own keys: Enter chooses while a list shows).
  input.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => pickerKey(event), { capture: true });
  byId("attach").addEventListener("click", startMention);
  setupFileAttachments();
  input.addEventListener("input", () => {
    if (slashCommand() !== null) void showPrompts(state.sessionId, startPrompt, commands);
    else void showMentions(state.sessionId, (/** @type {string} */ text) => showSystem(text, "error"));
  });
  input.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      byId("composer").requestSubmit();
    }
    // Escape stops the turn, as Stop does: not a viewer's to stop (people/roles.js).
    if (event.key === "Escape" && state.turnId && maySend()) socket.send({ type: "cancel", turnId: state.turnId });
  });
  byId("stop").addEventListener("click", () => {
    if (state.turnId) socket.send({ type: "cancel", turnId: state.turnId });
  });

  return {
    flushOutbox,
    rejected,
    focus: () => input.focus(),
    clear: () => {
      input.value = "";
      fitComposer();
    },
  };
}
