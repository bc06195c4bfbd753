// `@` in the message box: a list of the enabled servers' resources and resource
// templates matching what follows the `@`; choosing a resource attaches it (a chip
// above the box), choosing a template first asks for its variables (with the
// server's completion) and attaches the resource they name.
import { askArguments } from "../dialogs/argument-form.js";
import { completer, loadCatalog } from "../servers/catalog.js";
import { attach } from "./composer-attachments.js";
import { hidePicker, showPicker } from "./composer-picker.js";
import { byId } from "../core/dom.js";

const input = byId("composer-input");

/** The `@word` just before the caret, if the caret is in one. */
function mentionAt() {
  const before = input.value.slice(0, input.selectionStart ?? input.value.length);
  const match = /(^|\s)@([^\s@]*)$/.exec(before);
  return match ? { start: before.length - match[2].length - 1, query: match[2].toLowerCase() } : null;
}

/** Shows the resources matching the `@word` at the caret. */
export async function showMentions(sessionId, notify) {
  const mention = mentionAt();
  if (!mention || !sessionId) return hidePicker();
  const [resources, templates] = await Promise.all([loadCatalog(sessionId, "resources"), loadCatalog(sessionId, "resource-templates")]);
  // The box changed while the lists loaded: answer what it holds now.
  const now = mentionAt();
  if (!now || now.query !== mention.query) return;
  const matches = (...texts) => texts.some((t) => t?.toLowerCase().includes(now.query));
  const items = [
    ...resources
      .filter((r) => matches(r.name, r.title, r.uri))
      .map((r) => ({ id: `r:${r.server}:${r.uri}`, label: r.title ?? r.name, hint: r.server, detail: r.uri, kind: "resource", resource: r })),
    ...templates
      .filter((t) => matches(t.name, t.title, t.uriTemplate))
      .map((t) => ({
        id: `t:${t.server}:${t.uriTemplate}`,
        label: `${t.title ?? t.name}…`,
        hint: t.server,
        detail: t.uriTemplate,
        kind: "template",
        template: t,
      })),
  ].slice(0, 50);
  showPicker(items, (item) => choose(sessionId, item, now, notify), {
    title: "Attach a resource",
    empty: resources.length + templates.length === 0 ? "The servers on in this chat offer no resources." : `No resource matches "@${now.query}".`,
  });
}

/** Drops the `@word` from the box (the chip stands for it now). */
function removeMention(mention) {
  const end = input.selectionStart ?? input.value.length;
  input.value = input.value.slice(0, mention.start) + input.value.slice(end);
  input.setSelectionRange(mention.start, mention.start);
}

async function choose(sessionId, item, mention, notify) {
  removeMention(mention);
  let ref;
  if (item.kind === "resource") {
    const r = item.resource;
    ref = { server: r.server, uri: r.uri, name: r.title ?? r.name };
  } else {
    const t = item.template;
    const values = await askArguments({
      title: t.title ?? t.name,
      description: t.description,
      fields: t.variables.map((name) => ({ name, required: true })),
      submitLabel: "Attach",
      complete: completer(sessionId, t.server, { type: "ref/resource", uri: t.uriTemplate }, t.completions),
    });
    if (!values) return input.focus();
    // Named as the server will name it in the history: the template and its values.
    ref = { server: t.server, uri: expand(t.uriTemplate, values), name: [t.title ?? t.name, ...t.variables.map((v) => values[v] ?? "")].join(" ") };
  }
  if (!attach(ref)) notify("A message carries at most 8 resources.");
  input.focus();
}

/** Fills a URI template's simple `{name}` expressions (RFC 6570 level 1). */
function expand(template, values) {
  return template.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(values[name] ?? ""));
}

/** The @ button: starts a mention at the caret, which lists every resource. */
export function startMention() {
  const at = input.selectionStart ?? input.value.length;
  const before = input.value.slice(0, at);
  const insert = before && !/\s$/.test(before) ? " @" : "@";
  input.value = before + insert + input.value.slice(at);
  input.focus();
  input.setSelectionRange(at + insert.length, at + insert.length);
  input.dispatchEvent(new Event("input"));
}
