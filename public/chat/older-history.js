// Older parts of a long conversation, loaded as the reader scrolls up. A socket's
// `history` frame holds only the newest part (within a byte budget: issue 27) and
// names, in `older`, the entry before which more exist; near the top of the list the
// page asks GET /sessions/{id}/history?before={older} and shows that part above the
// rest, the view kept where it was, until no `older` is left. A new `history` frame
// (a reconnect, a switch of version, another session) starts over from its own.
import { request } from "../core/api.js";
import { addBranches } from "./branches.js";
import { showOlder, showUsage } from "./chat-view.js";
import { byId } from "../core/dom.js";
import { state, update } from "../core/state.js";

/** @typedef {import("../core/types").HistoryEntry} HistoryEntry */
/** @typedef {{ inputTokens: number, outputTokens: number }} Usage */

const list = byId("messages");
/** Within this many pixels of the top, the part before is asked for. */
const NEAR_TOP_PX = 400;
/** @type {number | undefined} */
let older;
/** Bumped by every `history` frame: an answer for an earlier one is dropped. */
let generation = 0;
let loading = false;

/** After a `history` frame: where the older part ends (undefined: nothing older). @param {number | undefined} before */
export function setOlder(before) {
  older = before;
  generation++;
  loading = false;
  list.dataset.older = before === undefined ? "" : String(before);
  queueMicrotask(loadIfNeeded);
}

/** Whether the reader is near the top, or the list does not fill its box (nothing to scroll yet). */
const nearTop = () => list.scrollTop < NEAR_TOP_PX || list.scrollHeight <= list.clientHeight + NEAR_TOP_PX;

async function loadIfNeeded() {
  const sessionId = state.sessionId;
  if (older === undefined || loading || !sessionId || !nearTop()) return;
  const mine = generation;
  let shown = false;
  loading = true;
  list.classList.add("loading-older");
  try {
    const answer = await request(`/sessions/${encodeURIComponent(sessionId)}/history?before=${older}`);
    if (mine !== generation || sessionId !== state.sessionId || !answer.ok) return;
    /** @type {{ entries: HistoryEntry[], older?: number, usage?: Record<string, Usage>, branches?: Parameters<typeof addBranches>[0] }} */
    const page = answer.data;
    // Everything added above (entries, their tokens, their turns' actions) moves the view by its height: taken back.
    const [height, top] = [list.scrollHeight, list.scrollTop];
    showOlder(page.entries);
    const usage = page.usage ?? {};
    // Their tokens were in the total already (state.usageOutside): moved into the per-turn map.
    const moved = Object.values(usage).reduce((n, u) => ({ inputTokens: n.inputTokens + u.inputTokens, outputTokens: n.outputTokens + u.outputTokens }), {
      inputTokens: 0,
      outputTokens: 0,
    });
    const outside = state.usageOutside;
    update({
      usage: { ...usage, ...state.usage },
      usageOutside: { inputTokens: Math.max(0, outside.inputTokens - moved.inputTokens), outputTokens: Math.max(0, outside.outputTokens - moved.outputTokens) },
    });
    for (const [turn, used] of Object.entries(usage)) showUsage(turn, used);
    addBranches(page.branches);
    list.scrollTop = top + (list.scrollHeight - height);
    older = page.older;
    list.dataset.older = older === undefined ? "" : String(older);
    shown = true;
  } catch {
    // Offline: tried again at the next scroll.
  } finally {
    if (mine === generation) loading = false;
    list.classList.remove("loading-older");
  }
  // Still near the top (a short part, a tall window): the next part at once.
  if (shown && mine === generation) void loadIfNeeded();
}

list.addEventListener("scroll", () => void loadIfNeeded(), { passive: true });
