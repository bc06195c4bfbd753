// "Allow when …" in the approval dialog: an argument rule built from the tool's input schema
// (docs/rules.md). Offered only for text arguments: one that looks like a path gets a folder
// (pre-filled with the folder of this call's value), one that looks like a URL gets a host
// (pre-filled with this call's host). The Worker normalises and checks the rule against this
// very call (rule_invalid otherwise); the page only helps the person say it.
import { toolSchema } from "../chat/tool-info.js";
import { byId } from "../core/dom.js";

const URL_NAME = /url|uri|href|link|endpoint/i;
const PATH_NAME = /path|file|dir|folder|root|dest|source|target/i;

/** @typedef {{ arg: string, kind: "path" | "host", value: string, schemes?: ("https" | "http")[], scope: "chat" }} RuleSpec */

/**
 * The kind of rule an argument can have: "path", "host" or "" (none: not text, or not path- or URL-like).
 * @param {string} name @param {any} property its JSON Schema (may be absent) @param {unknown} value this call's value
 */
export function ruleKind(name, property, value) {
  const strings = typeof value === "string" || (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string"));
  if (!strings) return "";
  const type = property?.type;
  if (property && type !== undefined && type !== "string" && !(type === "array" && property.items?.type === "string")) return "";
  const format = property?.format ?? property?.items?.format;
  if (format === "uri" || format === "url" || URL_NAME.test(name)) return "host";
  if (PATH_NAME.test(name)) return "path";
  return "";
}

/** What the rule's value starts as: this call's host, or the folder its path is in. @param {"path" | "host"} kind @param {unknown} value */
export function suggestedValue(kind, value) {
  const first = String(Array.isArray(value) ? value[0] : value);
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
    <p class="hint">Rule: <span id="rule-text"></span></p>
    <p id="rule-caveat" class="hint"></p>
    <button type="submit" value="rule" id="approve-rule">Allow with this rule</button>`;
  byId("approval-dialog").querySelector(".buttons")?.before(box);
  return box;
}

/** @type {{ server: string, tool: string, kinds: Map<string, "path" | "host">, args: Record<string, unknown> } | null} */
let current = null;

function refresh() {
  if (!current) return;
  const arg = /** @type {HTMLSelectElement} */ (byId("rule-arg")).value;
  const kind = current.kinds.get(arg) ?? "path";
  const value = /** @type {HTMLInputElement} */ (byId("rule-value")).value.trim();
  const http = /** @type {HTMLInputElement} */ (byId("rule-http")).checked;
  byId("rule-kind-label").textContent = kind === "path" ? "is under the folder" : "is on the host";
  byId("rule-http-label").hidden = kind !== "host";
  const shown = kind === "path" ? `is under ${value.endsWith("/") ? value : `${value}/`}` : `is on ${value} (${http ? "https or http" : "https"})`;
  byId("rule-text").textContent = `${current.server}.${current.tool} when ${arg} ${shown}`;
  byId("rule-caveat").textContent =
    kind === "path"
      ? "Judged from the text: .. and case variants ask again; a symlink inside the folder is followed by the server."
      : "Judged on the parsed URL: other hosts, ports, users in the URL and subdomains ask again (*.host for subdomains).";
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
 */
export function showRuleBuilder(request) {
  const box = section();
  box.hidden = true;
  box.removeAttribute("open");
  current = null;
  if (!request.tool || !request.arguments) return;
  const { server, tool } = request;
  const args = request.arguments;
  const dialog = byId("approval-dialog");
  void toolSchema(server, tool, request.sessionId).then((schema) => {
    if (dialog.dataset.callId !== request.callId) return;
    const properties = schema?.properties ?? {};
    /** @type {Map<string, "path" | "host">} */
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
    choose(select.value);
    box.hidden = false;
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
  return { arg, kind, value, ...(kind === "host" ? { schemes: http ? ["https", "http"] : ["https"] } : {}), scope: "chat" };
}
