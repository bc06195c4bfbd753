// Renders the conversation: user and assistant messages (streamed Markdown), a
// card per tool call (tool-cards.js), the tokens of each turn under its last
// message, and notices. Works from history entries and
// from live events alike. Every item of a turn carries `data-turn` (its turn id).
// Each notice or error is shown once: a line identical to the one just above it
// is not repeated, and an `error` event that repeats its turn's stored error entry is
// dropped. The no-model notice is in the banner, and under each message that found no
// model as its answer (no-model.js), with the restart `npm run dev` needs.
import { decorateUserEntry } from "../composer/composer-attachments.js";
import { markScheduled } from "./schedules.js";
import { markAuthor } from "../people/authors.js";
import { setCopyText } from "./copy.js";
import { renderMarkdownInto } from "./markdown-load.js";
import { showSummary } from "./summary-marker.js";
import { byId } from "../core/dom.js";
import { followEnd } from "./follow.js";
import { createStream } from "./stream-render.js";
import { offerWhole } from "./cut-entry.js";
import { noModelAnswer, renderNoModel } from "../servers/no-model.js";
import { hideWelcome } from "./welcome.js";
import { showTaskNote } from "./task-card.js";
import { modelName } from "./model-name.js";
import { aboveAll, item, lastLine, list, scroll, showingOlder, tidy } from "./chat-items.js";
import { card, clearCards, finishCard } from "./tool-cards.js";

// The chat's entry points for the tool cards stay here, with the rest of the chat's.
export { markApproval, setAppHooks, showStatus } from "./tool-cards.js";

const banner = byId("notice");
let streaming = null;
let bannerText = "";
/** `${turnId}\u0000${text}` of the errors already shown, so a turn's error shows once. */
const shownErrors = new Set();

/**
 * A streaming answer grows frame by frame: the list follows it from a ResizeObserver, which
 * the browser calls after its own layout of the frame, so the list's height is read where it
 * is known already. Following from the frame callback that wrote the text made the browser
 * lay the page out right there, inside our script, every frame (and again after any slice
 * written since). Also heard: the finish pass and the highlighting, which change the
 * answer's height after its last frame. Only the newest answer is observed.
 */
const grown = new ResizeObserver(() => scroll());

/** A notice or error line, unless the line just above says exactly the same. */
function systemLine(kind, text, turnId) {
  const clean = tidy(text);
  const last = lastLine();
  if (last?.classList.contains(kind) && last.classList.contains("msg") && last.textContent === clean) return null;
  const li = item(`msg ${kind}`, turnId);
  li.textContent = clean;
  return li;
}

export function clearChat() {
  // Cards whose app is being torn down stay (hidden) where they are: taken out and put back, a frame reloads.
  const keep = clearCards();
  for (const li of [...list.children]) if (!keep.has(li)) li.remove();
  shownErrors.clear();
  streaming = null;
  hideWelcome();
  followEnd();
}

/** The banner above the chat (the no-model notice); inline Markdown such as `code` is rendered. */
export function setBanner(text) {
  const shown = text ? String(text) : "";
  bannerText = shown;
  if (!shown) {
    banner.hidden = true;
    banner.replaceChildren();
    return;
  }
  // Shown once drawn (the renderer may still be loading): never an empty bar, or raw Markdown.
  void renderNoModel(banner, tidy(shown), true).then(() => {
    if (bannerText === shown) banner.hidden = false;
  });
}

/** Messages typed while disconnected, shown greyed at the end until they are sent. */
export function showPending(texts) {
  for (const old of list.querySelectorAll(":scope > .pending")) old.remove();
  for (const text of texts) {
    const li = document.createElement("li");
    li.className = "msg user pending";
    const body = document.createElement("span");
    body.className = "text";
    body.textContent = text;
    const note = document.createElement("small");
    note.className = "pending-note";
    note.textContent = "will send when reconnected";
    li.append(body, note);
    list.append(li);
  }
  scroll();
}

/** Which model gave an answer, under it. @param {HTMLElement} li @param {string | undefined} model */
function tagModel(li, model) {
  if (!model) return;
  const tag = document.createElement("span");
  tag.className = "model-tag";
  tag.textContent = modelName(model);
  tag.title = `Answered by ${tag.textContent}`;
  li.append(tag);
}

/** Applies one stored entry (history replay or a live `entry` event). */
export function showEntry(entry) {
  switch (entry.kind) {
    case "user": {
      // A held task's follow-up (the model's message, not the person's): a note of the task.
      if (entry.task) {
        showTaskNote(item("msg notice task-note", entry.turnId), entry);
        if (!showingOlder()) followEnd();
        break;
      }
      const li = item("msg user", entry.turnId);
      li.dataset.seq = String(entry.seq);
      li.textContent = entry.text;
      decorateUserEntry(li, entry);
      // Written by a schedule, not typed: "Scheduled · weekdays 08:00".
      if (entry.scheduled) markScheduled(li, entry.scheduled.spec);
      // Someone else's message in a shared chat: their name on it.
      markAuthor(li, entry.author);
      if (entry.text) setCopyText(li, entry.text);
      // A new question: follow its answer.
      if (!showingOlder()) followEnd();
      break;
    }
    case "assistant":
      if (streaming && !showingOlder()) {
        // The text streamed in already: settle it with the stored version (stream-render.js finishes showing it).
        if (entry.text) {
          streaming.stream.finish(entry.text, Boolean(entry.partial));
          setCopyText(streaming.el, entry.text);
          tagModel(streaming.el, entry.model);
          streaming.el.dataset.seq = String(entry.seq);
        } else streaming.el.remove();
        streaming = null;
      } else if (entry.text) {
        const li = item(`msg assistant${entry.partial ? " partial" : ""}`, entry.turnId);
        li.dataset.seq = String(entry.seq);
        const body = document.createElement("div");
        body.className = "body";
        renderMarkdownInto(body, entry.text);
        li.append(body);
        setCopyText(li, entry.text);
        tagModel(li, entry.model);
        offerWhole(body, entry, (whole) => {
          renderMarkdownInto(body, whole.text ?? "");
          setCopyText(li, whole.text ?? "");
        });
      }
      break;
    case "tool_call":
      card(entry.callId, entry.server, entry.tool, entry.arguments, entry.turnId);
      break;
    case "tool_result":
      finishCard(entry.callId, entry, entry.error === undefined ? "complete" : "error");
      break;
    case "notice":
      // The no-model notice (the server records it per turn): the answer under that message.
      if (bannerText && tidy(entry.text) === tidy(bannerText)) {
        noModelAnswer(item("msg assistant", entry.turnId), tidy(entry.text));
        break;
      }
      systemLine("notice", entry.text, entry.turnId);
      break;
    case "error":
      if (entry.turnId) shownErrors.add(`${entry.turnId}\u0000${entry.text ?? ""}`);
      systemLine("error", entry.text, entry.turnId);
      break;
    case "summary":
      showSummary(list, entry);
      break;
  }
  if (!showingOlder()) scroll();
}

/** Older entries (the reader scrolled up, older-history.js): shown above everything, without scrolling. */
export function showOlder(entries) {
  const first = list.querySelector(":scope > li");
  if (!first || entries.length === 0) return;
  aboveAll(first, () => {
    for (const entry of entries) showEntry(entry);
  });
}

export function streamText(message) {
  if (!streaming || streaming.messageId !== message.messageId) {
    const el = item("msg assistant streaming", message.turnId);
    el.innerHTML = '<div class="body"></div>';
    const body = /** @type {HTMLElement} */ (el.firstElementChild);
    grown.disconnect();
    grown.observe(el);
    // Its frames need nothing else: the observer hears each one that changed its height.
    streaming = { el, text: "", messageId: message.messageId, stream: createStream(el, body, () => {}) };
  }
  streaming.text += message.delta;
  setCopyText(streaming.el, streaming.text);
  streaming.stream.push(streaming.text);
}

export function endStream() {
  if (streaming) {
    streaming.stream.finish(streaming.text, false);
    streaming = null;
  }
}

const count = new Intl.NumberFormat(document.documentElement.lang || undefined);

/** "1,234 in · 56 out": a turn's or a session's model tokens. */
export function formatUsage(usage) {
  return `${count.format(usage.inputTokens)} in · ${count.format(usage.outputTokens)} out`;
}

/**
 * The model tokens of a turn, in small print under the last item of that turn (its
 * answer, usually). Shown again, not added, when the same turn's usage comes twice.
 */
export function showUsage(turnId, usage) {
  for (const old of list.querySelectorAll(":scope > .turn-usage")) if (old.dataset.turn === turnId) old.remove();
  if (!usage || !(usage.inputTokens + usage.outputTokens > 0)) return;
  const ofTurn = [...list.querySelectorAll(":scope > li:not(.pending)")].filter((li) => li.dataset.turn === turnId);
  const last = ofTurn[ofTurn.length - 1];
  if (!last) return;
  const li = document.createElement("li");
  li.className = "turn-usage";
  li.dataset.turn = turnId;
  li.title = "Model tokens of this turn: read (in) and written (out)";
  const label = document.createElement("span");
  label.className = "visually-hidden";
  label.textContent = "Tokens of this turn: ";
  const figure = document.createElement("span");
  figure.className = "figure";
  figure.textContent = formatUsage(usage);
  li.append(label, figure);
  last.after(li);
  scroll();
}

/** A live `error` event (or a page notice): shown unless its turn's error entry said it already. */
export function showSystem(text, kind = "notice", turnId) {
  if (kind === "error" && turnId) {
    const key = `${turnId}\u0000${text}`;
    if (shownErrors.has(key)) return;
    shownErrors.add(key);
  }
  systemLine(kind, text, turnId);
  scroll();
}
