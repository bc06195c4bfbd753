// Renders the conversation: user and assistant messages (streamed Markdown), a
// card per tool call (server, tool, arguments, progress, result or error,
// duration), and notices. Works from history entries and from live events alike.
import { escapeHtml, renderMarkdown } from "./markdown.js";

const list = document.getElementById("messages");
const cards = new Map();
let streaming = null;
let pendingRender = false;

const pretty = (value) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

function scroll() {
  list.scrollTop = list.scrollHeight;
}

function item(className) {
  const li = document.createElement("li");
  li.className = className;
  list.append(li);
  return li;
}

export function clearChat() {
  list.replaceChildren();
  cards.clear();
  streaming = null;
}

/** Applies one stored entry (history replay or a live `entry` event). */
export function showEntry(entry) {
  switch (entry.kind) {
    case "user": {
      const li = item("msg user");
      li.textContent = entry.text;
      break;
    }
    case "assistant":
      if (streaming) {
        // The text streamed in already: settle it with the stored version.
        if (entry.text) streaming.body.innerHTML = renderMarkdown(entry.text);
        else streaming.el.remove();
        streaming.el.classList.toggle("partial", Boolean(entry.partial));
        streaming.el.classList.remove("streaming");
        streaming = null;
      } else if (entry.text) {
        const li = item(`msg assistant${entry.partial ? " partial" : ""}`);
        li.innerHTML = `<div class="body">${renderMarkdown(entry.text)}</div>`;
      }
      break;
    case "tool_call":
      card(entry.callId, entry.server, entry.tool, entry.arguments);
      break;
    case "tool_result":
      finishCard(entry.callId, entry, entry.error === undefined ? "complete" : "error");
      break;
    case "notice":
    case "error": {
      const li = item(`msg ${entry.kind}`);
      li.textContent = entry.text ?? "";
      break;
    }
  }
  scroll();
}

export function streamText(message) {
  if (!streaming || streaming.messageId !== message.messageId) {
    const el = item("msg assistant streaming");
    el.innerHTML = '<div class="body"></div>';
    streaming = { el, body: el.firstElementChild, text: "", messageId: message.messageId };
  }
  streaming.text += message.delta;
  // Re-render at most once a frame: long answers stream many small deltas.
  if (!pendingRender) {
    pendingRender = true;
    requestAnimationFrame(() => {
      pendingRender = false;
      if (streaming) streaming.body.innerHTML = renderMarkdown(streaming.text);
      scroll();
    });
  }
}

export function endStream() {
  if (streaming) {
    streaming.el.classList.remove("streaming");
    streaming = null;
  }
}

function card(callId, server, tool, args) {
  let c = cards.get(callId);
  if (c) return c;
  const el = item("tool-card running");
  el.dataset.callId = callId;
  el.innerHTML = `
    <details>
      <summary><span class="tool-name"></span> <span class="tool-status">running…</span> <span class="tool-duration"></span></summary>
      <div class="tool-progress" hidden><progress max="1" value="0"></progress> <span class="progress-text"></span></div>
      <h4>Arguments</h4><pre class="tool-args"></pre>
      <h4 class="result-title" hidden>Result</h4><pre class="tool-result" hidden></pre>
    </details>`;
  el.querySelector(".tool-name").textContent = `${server}.${tool}`;
  el.querySelector(".tool-args").textContent = pretty(args ?? {});
  c = { el };
  cards.set(callId, c);
  return c;
}

function finishCard(callId, outcome, state) {
  const c = cards.get(callId) ?? card(callId, outcome.server ?? "?", outcome.tool ?? "?", outcome.arguments);
  const { el } = c;
  el.classList.remove("running");
  el.classList.add(state === "error" ? "failed" : "done");
  el.querySelector(".tool-status").textContent = state === "error" ? "error" : "done";
  if (outcome.durationMs !== undefined) el.querySelector(".tool-duration").textContent = `${outcome.durationMs} ms`;
  el.querySelector(".tool-progress").hidden = true;
  const result = el.querySelector(".tool-result");
  el.querySelector(".result-title").hidden = false;
  el.querySelector(".result-title").textContent = state === "error" ? "Error" : "Result";
  result.hidden = false;
  result.textContent = state === "error" ? outcome.error : pretty(outcome.result);
}

/** Live `status` events: the card appears at `processing`, shows progress, then the outcome. */
export function showStatus(status) {
  const c = card(status.callId, status.server, status.tool, status.arguments);
  if (status.state === "progress" && status.progress) {
    const box = c.el.querySelector(".tool-progress");
    box.hidden = false;
    const bar = box.querySelector("progress");
    bar.max = status.progress.total ?? 1;
    bar.value = status.progress.progress;
    box.querySelector(".progress-text").textContent = `${status.progress.progress}${status.progress.total ? ` / ${status.progress.total}` : ""}${status.progress.message ? ` ${status.progress.message}` : ""}`;
  } else if (status.state === "complete" || status.state === "error") {
    finishCard(status.callId, status, status.state);
  }
  scroll();
}

export function showSystem(text, kind = "notice") {
  const li = item(`msg ${kind}`);
  li.innerHTML = escapeHtml(text);
  scroll();
}
