// The search box over the user's conversations (GET /api/search): results while typing,
// one entry per session with its matching lines, the words found marked. Every piece of
// text is set as text (a title or message holding HTML shows as written, never parsed);
// a line opens its session at that message.
import { describeError, NetworkError, request } from "../core/api.js";
import { byId } from "../core/dom.js";

const DEBOUNCE_MS = 200;

/** A snippet's parts as text nodes, the found words in <mark>. @param {{ text: string, match: boolean }[]} parts */
function snippetNodes(parts) {
  return parts.map((p) => {
    if (!p.match) return document.createTextNode(p.text);
    const mark = document.createElement("mark");
    mark.textContent = p.text;
    return mark;
  });
}

/** @param {{ open: (id: string, seq?: number | null) => void }} hooks */
export function setupSessionSearch({ open }) {
  const input = byId("session-search");
  const results = byId("search-results");
  const list = byId("sessions");
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let asked = 0;

  function show(on) {
    results.hidden = !on;
    list.hidden = on;
  }

  /** @param {string} text */
  function say(text) {
    const li = document.createElement("li");
    li.className = "hint";
    li.textContent = text;
    results.replaceChildren(li);
  }

  /** @param {any[]} found @param {string} query */
  function render(found, query) {
    if (found.length === 0) return say(`No conversation matches “${query}”.`);
    results.replaceChildren(
      ...found.map((r) => {
        const li = document.createElement("li");
        li.className = "search-result";
        li.dataset.session = r.sessionId;
        const title = document.createElement("button");
        title.type = "button";
        title.className = "link result-title";
        const titleHit = r.hits.find((h) => h.kind === "title");
        if (titleHit) title.append(...snippetNodes(titleHit.snippet));
        else title.textContent = r.title?.trim() || "New chat";
        title.addEventListener("click", () => pick(r.sessionId, null));
        li.append(title);
        for (const hit of r.hits.filter((h) => h.kind !== "title")) {
          const line = document.createElement("button");
          line.type = "button";
          line.className = `link result-line ${hit.kind}`;
          line.dataset.seq = String(hit.seq);
          const speaker = hit.kind === "user" ? "You" : hit.kind === "schedule" ? "Schedule" : "Assistant";
          line.setAttribute("aria-label", `${speaker}: ${hit.snippet.map((p) => p.text).join("")}`);
          const who = document.createElement("span");
          who.className = "who";
          who.textContent = `${speaker}: `;
          line.append(who, ...snippetNodes(hit.snippet));
          line.addEventListener("click", () => pick(r.sessionId, hit.seq));
          li.append(line);
        }
        return li;
      }),
    );
  }

  /** @param {string} id @param {number | null} seq */
  function pick(id, seq) {
    open(id, seq);
  }

  async function run() {
    const query = input.value.trim();
    const mine = ++asked;
    if (!query) return show(false);
    show(true);
    try {
      const answer = await request(`/api/search?q=${encodeURIComponent(query.slice(0, 200))}`);
      if (mine !== asked) return;
      if (!answer.ok) return say(`Search failed: ${describeError(answer.status, answer.data)}`);
      render(answer.data.results ?? [], query);
    } catch (error) {
      if (mine === asked) say(error instanceof NetworkError ? error.message : "Search failed.");
    }
  }

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), DEBOUNCE_MS);
  });
  input.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
    if (event.key !== "Escape" || !input.value) return;
    event.stopPropagation();
    input.value = "";
    void run();
  });
  // The browser's own clear button (×) of a search field.
  input.addEventListener("search", () => void run());
}
