// The welcome of a new, empty chat: what the tools, `@` and `/` do, and the session's
// servers. Shown once the session's history says it is empty, hidden as soon as anything
// is in the chat (a message sent, another tab's turn); a session switch hides it until
// its history comes.
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";

const list = byId("messages");
const welcome = document.createElement("section");
welcome.id = "welcome";
welcome.className = "welcome";
welcome.setAttribute("aria-labelledby", "welcome-title");
welcome.hidden = true;
welcome.innerHTML = `
  <h2 id="welcome-title">Start a conversation</h2>
  <p>Ask anything. The model answers, and uses the tools of this session's MCP servers when it needs them: <span class="welcome-servers"></span></p>
  <ul>
    <li><strong>Tools</strong> run only when you allow them: each call asks first (or not, once you chose <em>Always allow</em>), and shows as a card you can open.</li>
    <li><kbd>@</kbd> attaches a resource of a server (a file, a record…) to your message.</li>
    <li><b>Files</b> from your computer: the paperclip, drop them on the chat, or paste a screenshot (images, PDFs, text and code).</li>
    <li><kbd>/</kbd> at the start of the box lists the servers' prompts: ready-made requests, some with a form.</li>
    <li><strong>Tool console</strong> (top right) calls a tool yourself, without the model.</li>
  </ul>
  <p class="hint">Enter sends, Shift+Enter starts a new line, Escape stops an answer.</p>`;
list.before(welcome);

const hasContent = () => list.querySelector(":scope > li:not([hidden])") !== null;

new MutationObserver(() => {
  if (hasContent()) welcome.hidden = true;
}).observe(list, { childList: true });

/** The history of the open session arrived: welcome when it is empty. */
export function historyShown() {
  welcome.hidden = hasContent();
}

/** Another session opens: hidden until its history says. */
export function hideWelcome() {
  welcome.hidden = true;
}

subscribe(["servers", "live"], () => {
  const names = state.servers.filter((s) => s.enabled).map((s) => `${s.name} (${s.toolCount} tools)`);
  /** @type {HTMLElement} */ (welcome.querySelector(".welcome-servers")).textContent =
    names.length > 0 ? `${names.join(", ")}.` : "none is switched on (see MCP servers in the menu).";
});
