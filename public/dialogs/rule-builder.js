// "Allow when …" in the approval dialog: an argument rule built from the tool's input schema
// (docs/rules.md). Offered only for text arguments: one whose schema lists its values (`enum`)
// gets "is exactly" (pre-filled with this call's value), one that looks like a path gets a folder
// (pre-filled with the folder of this call's value), one that looks like a URL gets a host
// (pre-filled with this call's host); for this chat or all the person's chats. The Worker normalises and checks the rule against this
// very call (rule_invalid otherwise); the page only helps the person say it.
import { toolSchema } from "../chat/tool-info.js";
import { byId } from "../core/dom.js";

const URL_NAME = /url|uri|href|link|endpoint/i;
const PATH_NAME = /path|file|dir|folder|root|dest|source|target/i;

/** @typedef {"path" | "host" | "equals"} RuleKind */
/** @typedef {{ arg: string, kind: RuleKind, value: string, schemes?: ("https" | "http")[], scope: "chat" | "all" }} RuleSpec */

/**
 * The kind of rule an argument can have: "equals" (its schema lists its values), "path", "host" or "" (none: not text, or not path- or URL-like).
 * @param {string} name @param {any} property its JSON Schema (may be absent) @param {unknown} value this call's value
 */
export function ruleKind(name, property, value) {
  const strings = typeof value === "string" || (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string"));
  if (!strings) return "";
  const type = property?.type;
  if (property && type !== undefined && type !== "string" && !(type === "array" && property.items?.type === "string")) return "";
  const values = property?.enum ?? property?.items?.enum;
  if (Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === "string")) return "equals";
  const format = property?.format ?? property?.items?.format;
  if (format === "uri" || format === "url" || URL_NAME.test(name)) return "host";
  if (PATH_NAME.test(name)) return "path";
  return "";
}

/** What the rule's value starts as: this call's value, host, or the folder its path is in. @param {RuleKind} kind @param {unknown} value */
export function suggestedValue(kind, value) {
  const first = String(Array.isArray(value) ? value[0] : value);
  if (kind === "equals") return first;
  if (kind === "host") {
    try {
      return new URL(first).hostname;
    } catch {
      return "";
    }
  }
  const slash = first.lastIndexOf("/");
  return slash > 0 ? first.slice(0, slash + 1) : "";
}

/** The part of the dialog this module owns, made once. */
function section() {
  let box = document.getElementById("approval-rule");
  if (box) return box;
  box = document.createElement("details");
  box.id = "approval-rule";
  box.className = "approval-rule";
  box.innerHTML = `<summary>Allow when …</summary>
    <label>Argument <select id="rule-arg"></select></label>
    <label><span id="rule-kind-label">is under the folder</span> <input id="rule-value" type="text" autocomplete="off" spellcheck="false"></label>
    <label id="rule-http-label"><input id="rule-http" type="checkbox"> http too (not only https)</label>
    <label>For <select id="rule-scope"><option value="chat">this chat</option><option value="all">all my chats</option></select></label>
    <p id="rule-refused" class="error" role="alert" hidden></p>
    <p class="hint">Rule: <span id="rule-text"></span></p>
    <p id="rule-caveat" class="hint"></p>
    <button type="submit" value="rule" id="approve-rule">Allow with this rule</button>`;
  byId("approval-dialog").querySelector(".buttons")?.before(box);
  return box;
}

/** @type {{ server: string, tool: string, kinds: Map<string, RuleKind>, args: Record<string, unknown> } | null} */
let current = null;

/** @type {Record<RuleKind, string>} */
const LABELS = { path: "is under the folder", host: "is on the host", equals: "is exactly" };
/** @type {Record<RuleKind, string>} */
const CAVEATS = {
  path: "Judged from the text: .. and case variants ask again; a symlink inside the folder is followed by the server.",
  host: "Judged on the parsed URL: other hosts, ports, users in the URL and subdomains ask again (*.host for subdomains).",
  equals: "Exactly this value: any other value, or another case, asks again.",
};

function refresh() {
  if (!current) return;
  const arg = /** @type {HTMLSelectElement} */ (byId("rule-arg")).value;
  const kind = current.kinds.get(arg) ?? "path";
  const value = /** @type {HTMLInputElement} */ (byId("rule-value")).value.trim();
  const http = /** @type {HTMLInputElement} */ (byId("rule-http")).checked;
  const all = /** @type {HTMLSelectElement} */ (byId("rule-scope")).value === "all";
  byId("rule-kind-label").textContent = LABELS[kind];
  byId("rule-http-label").hidden = kind !== "host";
  const shown =
    kind === "path"
      ? `is under ${value.endsWith("/") ? value : `${value}/`}`
      : kind === "equals"
        ? `is ${JSON.stringify(value)}`
        : `is on ${value} (${http ? "https or http" : "https"})`;
  byId("rule-text").textContent = `${current.server}.${current.tool} when ${arg} ${shown}${all ? ", in all my chats" : ""}`;
  byId("rule-caveat").textContent = CAVEATS[kind];
  /** @type {HTMLButtonElement} */ (byId("approve-rule")).disabled = value === "";
}

/** @param {string} arg */
function choose(arg) {
  if (!current) return;
  const kind = current.kinds.get(arg) ?? "path";
  /** @type {HTMLInputElement} */ (byId("rule-value")).value = suggestedValue(kind, current.args[arg]);
  /** @type {HTMLInputElement} */ (byId("rule-http")).checked = false;
  refresh();
}

/**
 * Sets the builder up for a tool call's approval; hidden until the tool's schema says which arguments can have a rule.
 * @param {{ callId: string, server: string, tool?: string, arguments?: Record<string, unknown>, sessionId?: string | null }} request
 * @param {string} [refusal] why the Worker refused the rule this question was last answered with: shown, the builder open
 */
export function showRuleBuilder(request, refusal) {
  const box = section();
  box.hidden = true;
  box.removeAttribute("open");
  const refused = byId("rule-refused");
  refused.textContent = refusal ? `Not kept: ${refusal}` : "";
  refused.hidden = !refusal;
  current = null;
  if (!request.tool || !request.arguments) return;
  const { server, tool } = request;
  const args = request.arguments;
  const dialog = byId("approval-dialog");
  void toolSchema(server, tool, request.sessionId).then((schema) => {
    if (dialog.dataset.callId !== request.callId) return;
    const properties = schema?.properties ?? {};
    /** @type {Map<string, RuleKind>} */
    const kinds = new Map();
    for (const [name, value] of Object.entries(args)) {
      const kind = ruleKind(name, properties[name], value);
      if (kind) kinds.set(name, kind);
    }
    if (kinds.size === 0) return;
    current = { server, tool, kinds, args };
    const select = /** @type {HTMLSelectElement} */ (byId("rule-arg"));
    select.replaceChildren(
      ...[...kinds.keys()].map((name) => {
        const option = document.createElement("option");
        option.value = name;
        option.textContent = name;
        return option;
      }),
    );
    select.onchange = () => choose(select.value);
    byId("rule-value").oninput = refresh;
    byId("rule-http").onchange = refresh;
    byId("rule-scope").onchange = refresh;
    // A question asked again after a refusal keeps what the person chose (the scope, the value they typed).
    if (!refusal) /** @type {HTMLSelectElement} */ (byId("rule-scope")).value = "chat";
    if (refusal && kinds.has(select.dataset.last ?? "")) select.value = select.dataset.last ?? "";
    if (refusal) refresh();
    else choose(select.value);
    select.dataset.last = select.value;
    box.hidden = false;
    if (refusal) box.setAttribute("open", "");
  });
}

/** The rule the person built, for the `approval` frame (after the dialog closed with "rule"). @returns {RuleSpec | undefined} */
export function builtRule() {
  if (!current) return undefined;
  const arg = /** @type {HTMLSelectElement} */ (byId("rule-arg")).value;
  const kind = current.kinds.get(arg);
  const value = /** @type {HTMLInputElement} */ (byId("rule-value")).value.trim();
  if (!kind || !value) return undefined;
  const http = kind === "host" && /** @type {HTMLInputElement} */ (byId("rule-http")).checked;
  const scope = /** @type {HTMLSelectElement} */ (byId("rule-scope")).value === "all" ? "all" : "chat";
  /** @type {HTMLSelectElement} */ (byId("rule-arg")).dataset.last = arg;
  return { arg, kind, value, ...(kind === "host" ? { schemes: http ? ["https", "http"] : ["https"] } : {}), scope };
}
