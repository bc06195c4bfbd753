// `/` at the start of the message box: the page's own commands (`/compact`), then the
// enabled servers' prompts (name and description); choosing a prompt asks for its
// arguments when it has any (required ones marked, the server's completion as
// suggestions), then starts a turn with it.
import { askArguments } from "../dialogs/argument-form.js";
import { completer, loadCatalog } from "../servers/catalog.js";
import { hidePicker, showPicker } from "./composer-picker.js";
import { byId } from "../core/dom.js";

const input = byId("composer-input");

/** The `/word` the box holds, when it is nothing but that. */
export function slashCommand() {
  const match = /^\/(\S*)$/.exec(input.value);
  return match ? match[1].toLowerCase() : null;
}

/**
 * @typedef {object} Command the page's own `/` commands, listed before the servers' prompts
 * @property {string} name
 * @property {string} detail
 * @property {() => void} run
 */

/**
 * Lists the page's commands and the prompts matching the box's `/word`; `start({server, name, arguments})` sends the chosen prompt.
 * @param {string | null} sessionId
 * @param {(prompt: { server: string, name: string, arguments?: Record<string, string> }) => void} start
 * @param {Command[]} [commands]
 */
export async function showPrompts(sessionId, start, commands = []) {
  const query = slashCommand();
  if (query === null || !sessionId) return hidePicker();
  const prompts = await loadCatalog(sessionId, "prompts");
  if (slashCommand() !== query) return;
  const own = commands
    .filter((c) => c.name.includes(query))
    .map((c) => ({ id: `edgehost:${c.name}`, label: `/${c.name}`, hint: "edgehost", detail: c.detail, command: c }));
  const items = prompts
    .filter((p) => p.name.toLowerCase().includes(query) || p.title?.toLowerCase().includes(query))
    .slice(0, 50)
    .map((p) => ({ id: `${p.server}:${p.name}`, label: `/${p.name}`, hint: p.server, detail: p.description ?? p.title ?? "", prompt: p }));
  // A command typed out in full comes first; otherwise the servers' prompts do (`/comp` is more likely a prompt than `/compact`).
  const exact = own.filter((c) => c.command.name === query);
  const ordered = [...exact, ...items, ...own.filter((c) => c.command.name !== query)];
  showPicker(ordered, (item) => (item.command ? runCommand(item.command) : choose(sessionId, item.prompt, start)), {
    title: "Prompts",
    empty: prompts.length === 0 ? "The servers on in this chat offer no prompts." : `No prompt matches "/${query}".`,
  });
}

function runCommand(/** @type {Command} */ command) {
  input.value = "";
  hidePicker();
  command.run();
  input.focus();
}

async function choose(sessionId, prompt, start) {
  input.value = "";
  let args = {};
  if (prompt.arguments.length > 0) {
    const values = await askArguments({
      title: `/${prompt.name}`,
      description: prompt.description ?? prompt.title,
      fields: prompt.arguments,
      submitLabel: "Send",
      complete: completer(sessionId, prompt.server, { type: "ref/prompt", name: prompt.name }, prompt.completions),
    });
    if (!values) return input.focus();
    args = values;
  }
  start({ server: prompt.server, name: prompt.name, arguments: args });
  input.focus();
}
