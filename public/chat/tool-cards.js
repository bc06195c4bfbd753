// A card per tool call in the chat: server, tool, arguments, progress, result or error,
// duration, and the images and audio a completed call returned. Built from history entries
// (tool_call, tool_result) and from live `status` events alike; chat-view.js routes both here.
import { showArguments } from "../dialogs/approval-args.js";
import { item, scroll, tidy } from "./chat-items.js";
import { offerWhole } from "./cut-entry.js";
import { fillResult, mediaElements, showResult } from "./tool-result.js";

const cards = new Map();
/**
 * MCP Apps (mcp-apps.js): `finished` hears each completed call with its card;
 * `clearing` tears the apps down and names the cards to keep, hidden, until they are done.
 */
/** @type {{ finished: (card: HTMLElement, call: { server: string, tool: string, arguments: unknown, result: unknown }) => void, clearing: () => HTMLElement[] }} */
let appHooks = { finished: () => {}, clearing: () => [] };

export function setAppHooks(hooks) {
  appHooks = hooks;
}

/** The chat is cleared: the cards are forgotten; returns those whose app is being torn down, to keep. */
export function clearCards() {
  const keep = new Set(appHooks.clearing());
  cards.clear();
  return keep;
}

export function card(callId, server, tool, args, turnId) {
  let c = cards.get(callId);
  if (c) return c;
  const el = item("tool-card running", turnId);
  el.dataset.callId = callId;
  el.innerHTML = `
    <details>
      <summary><span class="tool-name"></span> <span class="tool-status">running…</span> <span class="tool-duration"></span></summary>
      <h4>Arguments</h4><dl class="tool-args approval-fields"></dl>
      <h4 class="result-title" hidden>Result</h4><pre class="tool-result" hidden></pre>
    </details>
    <div class="tool-progress" hidden><progress max="1" value="0"></progress> <span class="progress-text"></span></div>
    <div class="tool-media" hidden></div>`;
  // A tool the model made up has no server ("unknown"): show its name as it was sent.
  const known = server && server !== "unknown" && server !== "?";
  el.querySelector(".tool-name").textContent = known ? `${server}.${tool}` : (tool ?? "?");
  if (!known) el.classList.add("unknown-tool");
  // Readable as in the approval dialog: one row per argument, strings as text (approval-args.js).
  const fields = args !== null && typeof args === "object" && !Array.isArray(args) ? args : args === undefined ? {} : { arguments: args };
  showArguments(el.querySelector(".tool-args"), /** @type {Record<string, unknown>} */ (fields));
  c = { el, server, tool, args };
  cards.set(callId, c);
  return c;
}

/**
 * A call the user denied (or a turn cancelled before it ran) is not an error of the tool:
 * src/orchestrator/turn.ts records it with these words and 0 ms, live and in the history.
 */
const NOT_RUN = new Map([
  ["The user denied this tool call.", "denied"],
  ["Cancelled by the user.", "cancelled"],
]);

export function finishCard(callId, outcome, state) {
  const c = cards.get(callId) ?? card(callId, outcome.server ?? "?", outcome.tool ?? "?", outcome.arguments);
  const { el } = c;
  const notRun = state === "error" && !outcome.durationMs ? NOT_RUN.get(outcome.error) : undefined;
  el.classList.remove("running", "waiting");
  el.classList.add(notRun ? "not-run" : state === "error" ? "failed" : "done");
  if (notRun) el.classList.add(notRun);
  el.querySelector(".tool-status").textContent = notRun ?? (state === "error" ? "error" : "done");
  if (outcome.durationMs !== undefined && !notRun) el.querySelector(".tool-duration").textContent = `${outcome.durationMs} ms`;
  el.querySelector(".tool-progress").hidden = true;
  const result = el.querySelector(".tool-result");
  el.querySelector(".result-title").hidden = false;
  el.querySelector(".result-title").textContent = notRun ? "Not run" : state === "error" ? "Error" : "Result";
  result.hidden = false;
  if (notRun) fillResult(result, { kind: "text", text: tidy(outcome.error) });
  else fillResult(result, state === "error" ? { kind: "error", text: tidy(outcome.error) } : showResult(outcome.result));
  offerWhole(result, outcome, (whole) => finishCard(callId, whole, state));
  if (state === "complete") appHooks.finished(el, { server: c.server, tool: c.tool, arguments: c.args, result: outcome.result });
}

/** The card of a call waiting for the user's approval says so (not "running…"). */
export function markApproval(callId, waiting) {
  const el = cards.get(callId)?.el;
  if (!el?.classList.contains("running")) return;
  el.classList.toggle("waiting", waiting);
  el.querySelector(".tool-status").textContent = waiting ? "waiting for approval" : "running…";
}

/** Live `status` events: the card appears at `processing`, shows progress, then the outcome. */
export function showStatus(status) {
  const c = card(status.callId, status.server, status.tool, status.arguments, status.turnId);
  if (status.state === "progress" && status.progress) {
    const box = c.el.querySelector(".tool-progress");
    box.hidden = false;
    const bar = box.querySelector("progress");
    bar.max = status.progress.total ?? 1;
    bar.value = status.progress.progress;
    box.querySelector(".progress-text").textContent =
      `${status.progress.progress}${status.progress.total ? ` / ${status.progress.total}` : ""}${status.progress.message ? ` ${status.progress.message}` : ""}`;
  } else if (status.state === "complete" || status.state === "error") {
    finishCard(status.callId, status, status.state);
    if (status.state === "complete" && Array.isArray(status.media) && status.media.length > 0) showMedia(c.el, status.media);
  }
  scroll();
}

/**
 * The images and audio of a completed call, shown below its summary (open or not).
 * They come only with the live `status`: the history keeps a note in the result instead,
 * so after a reload the card shows that note.
 */
function showMedia(el, media) {
  const box = el.querySelector(".tool-media");
  const name = el.querySelector(".tool-name").textContent;
  box.replaceChildren(...mediaElements(media, name));
  box.hidden = box.childElementCount === 0;
  // An image changes the card's height once decoded: keep the end of the chat in view.
  for (const img of box.querySelectorAll("img")) img.addEventListener("load", scroll, { once: true });
}
