// The welcome of a new, empty chat: the person's presets (one applies to this chat before
// its first message: account/presets.js), example prompts from the session's servers' tools
// (welcome-prompts.js; one fills the message box, nothing is sent), what the tools, `@`
// and `/` do, and the session's servers. Shown once the session's history says it is
// empty, hidden as soon as anything is in the chat (a message sent, another tab's turn);
// a session switch hides it until its history comes.
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";
import { applyToChat, summary, watchPresets } from "../account/presets.js";
import { isOwner } from "../people/roles.js";
import { examplePrompts } from "./welcome-prompts.js";

const list = byId("messages");
const welcome = document.createElement("section");
welcome.id = "welcome";
welcome.className = "welcome";
welcome.setAttribute("aria-labelledby", "welcome-title");
welcome.hidden = true;
welcome.innerHTML = `
  <h2 id="welcome-title">Start a conversation</h2>
  <div class="welcome-presets" role="group" aria-labelledby="welcome-presets-label" hidden>
    <span id="welcome-presets-label">Start with a preset:</span>
  </div>
  <div class="welcome-prompts" role="group" aria-label="Example prompts"></div>
  <p>Ask anything. The model answers, and uses the tools of this chat's MCP servers when it needs them: <span class="welcome-servers"></span></p>
  <ul>
    <li><strong>Tools</strong> run only when you allow them: each call asks first (or not, once you chose <em>Always allow</em>), and shows as a card you can open.</li>
    <li><kbd>@</kbd> attaches a resource of a server (a file, a record…) to your message.</li>
    <li><b>Files</b> from your computer: the paperclip, drop them on the chat, or paste a screenshot (images, PDFs, text and code).</li>
    <li><kbd>/</kbd> at the start of the box lists the servers' prompts: ready-made requests, some with a form.</li>
    <li><strong>Tool console</strong> (top right) calls a tool yourself, without the model.</li>
  </ul>
  <p class="hint">Enter sends, Shift+Enter starts a new line, Escape stops an answer.</p>`;
list.before(welcome);

const promptsBox = /** @type {HTMLElement} */ (welcome.querySelector(".welcome-prompts"));
const presetsBox = /** @type {HTMLElement} */ (welcome.querySelector(".welcome-presets"));
/** @type {import("../account/presets.js").Preset[]} */
let presets = [];
/** What the prompts shown were made for (session and its ready servers' tools): made again only when that changes. */
let promptsFor = "";

const hasContent = () => list.querySelector(":scope > li:not([hidden])") !== null;

new MutationObserver(() => {
  if (hasContent()) welcome.hidden = true;
}).observe(list, { childList: true });

/** The history of the open session arrived: welcome when it is empty. */
export function historyShown() {
  welcome.hidden = hasContent();
  showPrompts();
  showPresets();
}

/**
 * The person's presets as chips, in a chat of their own (only a chat's owner applies one)
 * whose socket is up: one applies to this chat (model, servers, instructions) before its
 * first message; the chat's notice then says what changed, and hides the welcome.
 */
function showPresets() {
  // A chat shared with this person is in `state.shared`, not their own list; `you` says so once its socket is up.
  const mine = state.sessions.some((s) => s.id === state.sessionId) && isOwner();
  presetsBox.hidden = !mine || presets.length === 0;
  const chips = presets.map((preset) => {
    const chip = promptButton(preset.name, () => applyToChat(preset), `Apply ${preset.name} to this chat: ${summary(preset)}`);
    chip.classList.add("welcome-preset");
    chip.disabled = !state.live;
    return chip;
  });
  const label = /** @type {HTMLElement} */ (presetsBox.firstElementChild);
  presetsBox.replaceChildren(label, ...chips);
}

watchPresets((list) => {
  presets = list;
  showPresets();
});

/** The example prompts of the open session, read from its servers' tools while the welcome shows. */
function showPrompts() {
  // Only once this session's socket said which servers it has (before, the list is another
  // chat's or empty, not "none": sessions.js sets `live` false as a chat opens).
  if (welcome.hidden || !state.sessionId || !state.live) return;
  const ready = state.servers.filter((s) => s.enabled && s.state === "ready");
  // Servers still connecting (a new chat's first frames): nothing yet, rather than "Add an MCP
  // server" for a moment, swapped for the prompts under a click that meant one of them.
  if (ready.length === 0 && state.servers.some((s) => s.enabled && s.state === "connecting")) return;
  const key = `${state.sessionId}|${ready.map((s) => `${s.name}:${(s.tools ?? []).join(" ")}`).join(",")}`;
  if (key === promptsFor) return;
  promptsFor = key;
  // The servers frame names each ready server's tools: no request for the catalogue.
  const servers = ready.map((s) => ({ name: s.name, state: s.state, tools: (s.tools ?? []).map((name) => ({ name })) }));
  const prompts = examplePrompts(servers);
  if (prompts.length === 0) {
    // No tools to suggest: a way to get some.
    const add = promptButton("Add an MCP server", () => byId("my-servers-open").click());
    add.classList.add("add-server");
    return promptsBox.replaceChildren(add);
  }
  promptsBox.replaceChildren(...prompts.map((p) => promptButton(p.text, () => fill(p.text), `From ${p.server}'s ${p.tool}`)));
}

/** @param {string} text @param {() => void} run @param {string} [hint] */
function promptButton(text, run, hint) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "welcome-prompt";
  b.textContent = text;
  if (hint) b.title = hint;
  b.addEventListener("click", run);
  return b;
}

/** Puts a prompt in the message box, caret at its end, to send or finish (nothing is sent). @param {string} text */
function fill(text) {
  const input = /** @type {HTMLTextAreaElement} */ (byId("composer-input"));
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.focus();
  input.setSelectionRange(text.length, text.length);
}

/** Another session opens: hidden until its history says (its prompts are its servers'). */
export function hideWelcome() {
  welcome.hidden = true;
  promptsBox.replaceChildren();
  promptsFor = "";
}

subscribe(["live", "sessionId", "sessions", "you"], showPresets);

subscribe(["servers", "live"], () => {
  const names = state.servers.filter((s) => s.enabled).map((s) => `${s.name} (${s.toolCount} ${s.toolCount === 1 ? "tool" : "tools"})`);
  /** @type {HTMLElement} */ (welcome.querySelector(".welcome-servers")).textContent =
    names.length > 0 ? `${names.join(", ")}.` : "none is switched on (see MCP servers in the menu).";
  showPrompts();
});
