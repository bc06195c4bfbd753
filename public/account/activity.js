// "Activity": the person's audit trail (docs/audit.md), newest first from GET /api/audit,
// a page at a time (Older follows the page's `next` cursor), with the whole trail as a JSON
// Lines or CSV download (GET /api/audit/export). A row says what was called, in which chat,
// who asked, who decided and how, how it ended, and sizes and short hashes: never the
// arguments or the result, which the trail does not hold.
import { describeError, request } from "../core/api.js";
import { byId as $ } from "../core/dom.js";

/**
 * @typedef {{ key: string, name: string }} Person
 * @typedef {{ bytes: number, sha256: string }} Digest
 * @typedef {{ id: string, at: number, chat: string, server: string, tool: string,
 *   askedBy: { kind: string, person?: Person, scheduleId?: string, client?: { id: string, name: string } },
 *   decision: { how: string, answer?: string, by?: Person, ruleText?: string },
 *   args: Digest, result?: Digest, status: string, errorCode?: string, durationMs: number }} AuditRow
 */

const ASKED = /** @type {Record<string, string>} */ ({
  model: "the model",
  person: "the tool console",
  schedule: "a schedule",
  app: "an MCP App",
  mcp_client: "an MCP client",
});

const STATUS = /** @type {Record<string, string>} */ ({
  ok: "ran",
  tool_error: "the tool reported an error",
  error: "failed",
  denied: "not run: denied",
  cancelled: "cancelled",
  timeout: "timed out",
});

/** Who asked, in words. */
function askedBy(/** @type {AuditRow} */ row) {
  const who = ASKED[row.askedBy.kind] ?? row.askedBy.kind;
  if (row.askedBy.kind === "mcp_client" && row.askedBy.client) return `${who}, ${row.askedBy.client.name}`;
  return row.askedBy.kind === "model" && row.askedBy.person ? `${who}, for ${row.askedBy.person.name}` : who;
}

/** How the call was decided, in words. */
function decided(/** @type {AuditRow} */ row) {
  const { how, answer, by, ruleText } = row.decision;
  const name = by ? ` by ${by.name}` : "";
  if (how === "asked") {
    if (answer === "allowed") return `asked, allowed${name}`;
    if (answer === "denied") return `asked, denied${name}`;
    if (answer === "timed_out") return "asked, no answer in time";
    return "asked, cancelled";
  }
  if (how === "rule") return `allowed by rule: ${ruleText ?? "a rule"}`;
  if (how === "always") return "always allowed in the chat";
  if (how === "pre_granted") return "pre-granted to the schedule";
  if (how === "config") return "allowed by the server's configuration";
  return "approval is off on this deployment";
}

const size = (/** @type {number} */ bytes) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);
const digest = (/** @type {string} */ label, /** @type {Digest | undefined} */ d) =>
  d ? `${label} ${size(d.bytes)} (sha256 ${d.sha256.slice(0, 10)}…)` : `${label}: none`;

export function setupActivity() {
  const dialog = /** @type {HTMLDialogElement} */ ($("activity-dialog"));
  const list = $("activity-list");
  const older = /** @type {HTMLButtonElement} */ ($("activity-older"));
  /** @type {string | undefined} */
  let next;
  const say = (/** @type {string} */ text) => ($("activity-status").textContent = text);

  function row(/** @type {AuditRow} */ record, /** @type {string | undefined} */ title) {
    const li = document.createElement("li");
    li.className = "activity-row";
    const what = document.createElement("strong");
    what.textContent = `${record.server}.${record.tool}`;
    const when = document.createElement("span");
    when.className = "hint";
    when.textContent = `${new Date(record.at).toLocaleString()} · ${title || "an untitled chat"}`;
    const how = document.createElement("span");
    how.textContent = `Asked by ${askedBy(record)}; ${decided(record)}; ${STATUS[record.status] ?? record.status}${record.errorCode ? ` (${record.errorCode})` : ""} in ${record.durationMs} ms`;
    const sizes = document.createElement("span");
    sizes.className = "hint";
    sizes.textContent = `${digest("arguments", record.args)} · ${digest("result", record.result)}`;
    li.append(what, when, how, sizes);
    return li;
  }

  async function load(/** @type {boolean} */ fresh) {
    const answer = await request(`/api/audit?limit=50${!fresh && next ? `&before=${encodeURIComponent(next)}` : ""}`);
    if (!answer.ok) return say(describeError(answer.status, answer.data));
    if (fresh) list.replaceChildren();
    const titles = /** @type {Record<string, string>} */ (answer.data.titles ?? {});
    for (const record of /** @type {AuditRow[]} */ (answer.data.records)) list.append(row(record, titles[record.chat]));
    next = answer.data.next;
    older.hidden = !next;
    const count = list.querySelectorAll(".activity-row").length;
    say(count === 0 ? "No tool calls recorded yet." : `${count} tool call${count === 1 ? "" : "s"}, newest first.`);
  }

  older.addEventListener("click", () => void load(false));
  $("activity-close").addEventListener("click", () => dialog.close());
  $("activity-open").addEventListener("click", () => {
    say("");
    dialog.showModal();
    void load(true);
  });
}
