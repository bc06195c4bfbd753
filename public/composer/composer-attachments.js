// Attached resources as chips: in the composer (what the next message will carry,
// each removable) and under a user message in the chat (what it carried, and the
// prompt that wrote it). A chip is marked "updated" when its server says the
// resource changed (`resource_updated`): later turns use the new contents.
import { byId } from "../core/dom.js";
import { decorateFiles } from "./file-attachments.js";

const MAX_ATTACHMENTS = 8;
const box = byId("composer-attachments");
let attached = [];

const keyOf = (ref) => `${ref.server}\u0000${ref.uri}`;

/** Adds a resource to the next message (once); false when the message is full. */
export function attach(ref) {
  if (attached.some((a) => keyOf(a) === keyOf(ref))) return true;
  if (attached.length >= MAX_ATTACHMENTS) return false;
  attached.push(ref);
  render();
  return true;
}

/** The resources for the message being sent; the composer is emptied. */
export function takeAttachments() {
  const taken = attached;
  attached = [];
  render();
  return taken;
}

/** Puts chips back (the message was refused). */
export function restoreAttachments(taken) {
  for (const ref of taken ?? []) attach(ref);
}

function render() {
  box.replaceChildren(...attached.map((ref) => chip(ref, true)));
  box.hidden = attached.length === 0;
}

function chip(ref, removable) {
  const el = document.createElement(removable ? "span" : "li");
  el.className = "chip";
  el.dataset.server = ref.server;
  el.dataset.uri = ref.uri;
  el.title = `${ref.uri} (${ref.server})`;
  const label = document.createElement("span");
  label.className = "chip-label";
  label.textContent = `@${ref.name ?? shortName(ref.uri)}`;
  el.append(label);
  if (removable) {
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "chip-remove";
    remove.setAttribute("aria-label", `Remove ${ref.name ?? ref.uri}`);
    remove.textContent = "×";
    remove.addEventListener("click", () => {
      attached = attached.filter((a) => keyOf(a) !== keyOf(ref));
      render();
      byId("composer-input").focus();
    });
    el.append(remove);
  }
  return el;
}

function shortName(uri) {
  const tail = uri.replace(/\/+$/, "").split("/").pop() ?? uri;
  try {
    return decodeURIComponent(tail) || uri;
  } catch {
    return tail || uri;
  }
}

/** Adds what a user entry carried under its text: the prompt used, the resources attached. */
export function decorateUserEntry(li, entry) {
  if (entry.prompt) {
    const badge = document.createElement("span");
    badge.className = "prompt-badge";
    const args = Object.entries(entry.prompt.arguments ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(" ");
    badge.textContent = `/${entry.prompt.name}${args ? ` ${args}` : ""}`;
    badge.title = `Prompt "${entry.prompt.name}" of ${entry.prompt.server}`;
    li.prepend(badge);
  }
  decorateFiles(li, entry);
  if (!entry.attachments?.length) return;
  const list = document.createElement("ul");
  list.className = "chips";
  list.setAttribute("aria-label", "Attached resources");
  list.append(...entry.attachments.map((ref) => chip(ref, false)));
  li.append(list);
}

/** A resource changed at its server: every chip of it says so. */
export function markResourceUpdated(server, uri) {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".chips .chip"))) {
    if (el.dataset.server !== server || el.dataset.uri !== uri) continue;
    el.dataset.updated = "true";
    if (!el.querySelector(".chip-updated")) {
      const note = document.createElement("span");
      note.className = "chip-updated";
      note.textContent = "updated";
      el.append(note);
    }
    el.title = `${uri} (${server}), updated ${new Date().toLocaleTimeString()}: later turns use the new contents`;
  }
}
