// The tool console: pick a tool, fill a form built from its JSON Schema, call it
// directly over POST /api/tools/{server.tool}. Console calls run in the caller's
// own console session (no sessionId is sent), so they never land in the chat.
// Required fields are checked before approval is asked; "Always allow" is sent
// as `remember` so the server stops asking; error results read as errors.
import { describeError, NetworkError, request } from "../core/api.js";
import { askApproval } from "../dialogs/dialogs.js";
import { buildSchemaForm } from "../dialogs/schema-form.js";
import { contentText, fillResult, showResult, showStructured } from "./tool-result.js";
import { byId } from "../core/dom.js";

const $ = byId;

/**
 * A tool's answer as shown: its content parts as text (JSON text indented), and its
 * structured content as indented JSON when that says more than the text does.
 */
function resultViews(result) {
  const parts = Array.isArray(result?.content) ? result.content : [];
  const structured = result?.structuredContent;
  const text = parts.length > 0 ? showResult(contentText(parts)) : undefined;
  if (structured === undefined || structured === null) return { main: text ?? { kind: "text", text: "(no content)" } };
  const data = showStructured(structured);
  if (!text?.text.trim()) return { main: data };
  return { main: text, structured: data.text === text.text ? undefined : data };
}

export function setupConsole() {
  const select = $("console-tool");
  const form = $("console-form");
  const out = $("console-result");
  const structuredOut = $("console-structured");
  const outcome = $("console-outcome");
  const button = $("console-call");
  let tools = [];
  let read = Object.assign(() => ({}), { missing: () => [] });
  let generation = 0;

  /**
   * outcome: "pending" | "ok" | "error" | "denied" | "" (cleared); `views`: a message, or
   * the result's text and its structured content (see resultViews).
   * @param {string} kind
   * @param {string} title
   * @param {string | { main: import("./tool-result.js").Shown, structured?: import("./tool-result.js").Shown }} [views]
   * @param {number | "network"} [status] the HTTP status, or "network" when there was no answer
   */
  const show = (kind, title, views = "", status) => {
    const { main, structured } = typeof views === "string" ? { main: { kind: kind === "error" ? "error" : "text", text: views } } : views;
    out.dataset.outcome = kind;
    outcome.dataset.outcome = kind;
    if (status === undefined) delete out.dataset.status;
    else out.dataset.status = String(status);
    outcome.hidden = !title;
    outcome.textContent = title;
    out.hidden = !main.text;
    fillResult(out, main);
    structuredOut.hidden = !structured;
    if (structured) fillResult(structuredOut.querySelector("pre"), structured);
  };
  const clear = () => show("", "", "");

  const pick = () => {
    const tool = tools.find((t) => t.qualifiedName === select.value);
    $("console-description").textContent = tool?.description ?? "";
    read = tool ? buildSchemaForm(form, tool.inputSchema) : Object.assign(() => ({}), { missing: () => [] });
    // A result belongs to the tool that produced it.
    clear();
  };
  select.addEventListener("change", pick);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    button.click();
  });

  async function load() {
    const mine = ++generation;
    if (tools.length === 0) select.replaceChildren(new Option("Loading tools…", ""));
    let answer;
    try {
      answer = await request("/api/servers");
    } catch (error) {
      if (mine === generation) show("error", "Could not load the tools.", error.message);
      return;
    }
    if (mine !== generation) return;
    if (!answer.ok) {
      show("error", "Could not load the tools.", describeError(answer.status, answer.data), answer.status);
      return;
    }
    tools = (answer.data?.servers ?? []).flatMap((s) => (s.state === "ready" ? s.tools : []));
    const previous = select.value;
    select.replaceChildren(...tools.map((t) => new Option(`${t.qualifiedName}${t.needsApproval ? " (asks)" : ""}`, t.qualifiedName)));
    if (tools.length === 0) select.append(new Option("No tools: no MCP server is ready", ""));
    if (tools.some((t) => t.qualifiedName === previous)) {
      select.value = previous;
      $("console-description").textContent = tools.find((t) => t.qualifiedName === previous)?.description ?? "";
    } else pick();
  }

  button.addEventListener("click", async () => {
    const tool = tools.find((t) => t.qualifiedName === select.value);
    if (!tool) return;
    const missing = read.missing();
    if (missing.length > 0) {
      show("error", `Fill in the required ${missing.length === 1 ? "field" : "fields"}: ${missing.map((m) => m.label).join(", ")}.`);
      missing[0].input.focus();
      return;
    }
    let args;
    try {
      args = read();
    } catch (error) {
      show("error", "The arguments are not valid.", String(error.message ?? error));
      return;
    }
    const body = { arguments: args };
    if (tool.needsApproval) {
      const server = tool.qualifiedName.slice(0, tool.qualifiedName.length - tool.name.length - 1) || tool.qualifiedName.split(".")[0];
      const answer = await askApproval(
        { kind: "tool", callId: "console", server, tool: tool.name, arguments: args, sessionId: null },
        { always: "Always allow" },
      );
      if (answer !== "approve" && answer !== "always") {
        show("denied", "Not called: you denied it.");
        return;
      }
      body.approved = true;
      if (answer === "always") body.remember = true;
    }
    button.disabled = true;
    show("pending", "Calling…");
    try {
      const answer = await request(`/api/tools/${encodeURIComponent(tool.qualifiedName)}`, { method: "POST", body });
      if (answer.ok && answer.data?.result) {
        const result = answer.data.result;
        const took = typeof answer.data.durationMs === "number" ? ` in ${answer.data.durationMs} ms` : "";
        if (result.isError) show("error", `The tool reported an error${took}:`, { main: { ...resultViews(result).main, kind: "error" } }, answer.status);
        else show("ok", `Result${took}:`, resultViews(result), answer.status);
      } else {
        show("error", "The call failed:", describeError(answer.status, answer.data), answer.status);
      }
    } catch (error) {
      show("error", error instanceof NetworkError ? "The call could not be made." : "The call failed.", String(error.message ?? error), "network");
    } finally {
      button.disabled = false;
    }
    // The server no longer asks for a remembered tool: show it without "(asks)".
    if (body.remember) await load();
  });

  return { load, clear };
}
