// "My machines": the developer machines paired with this account (`mcp-local-bridge
// connect URL`), online or offline, their servers, and revoke; and approving a pairing
// code, typed in or arriving as #pair=CODE from the link the bridge printed. The page
// shows the name the machine asked for before the user approves, and says plainly that
// approving gives that machine's servers to this account's chats. A code that is refused
// says why (codeRefused), since that is the step where a person judges a code.
import { describeError, requestOrRefusal } from "../core/api.js";
import { confirmAction } from "../dialogs/dialogs.js";
import { byId } from "../core/dom.js";

const $ = byId;

/** What a pairing code looks like (src/machines/credentials.ts CODE_PATTERN): checked before asking. */
const CODE = /^[2-9A-HJKMNP-Z]{4}-?[2-9A-HJKMNP-Z]{4}$/;
const NOT_A_CODE = "That is not a pairing code: it is 8 letters and digits, as your terminal shows it (e.g. K7QM-2XPD).";

/**
 * Why the Worker refused a code (src/http/machines.ts), in words a person can act on.
 * A code it has no words for here keeps the Worker's own message.
 * @param {{ status: number, data: any }} answer `data`: the Worker's JSON as request() parsed it, checked field by field here
 */
function codeRefused(answer) {
  const error = answer.data?.error;
  if (answer.status === 429) {
    const seconds = typeof error?.retryAfterMs === "number" ? Math.ceil(error.retryAfterMs / 1000) : undefined;
    return `Too many wrong codes from your address: try again${seconds ? ` in ${seconds} s` : " later"}. Only approve a code your own terminal shows.`;
  }
  switch (error?.code) {
    case "pairing_unknown":
      return "No machine is waiting with this code: it expired (a code lasts 10 minutes), was used already, or is mistyped. Check it against your terminal, or run `mcp-local-bridge connect` again for a new one.";
    case "pairing_used":
      return "This code was approved already: each code pairs once. Run `mcp-local-bridge connect` again for a new one.";
    case "too_many_machines":
      return "You have paired the most machines allowed: remove one below first.";
    default:
      if (error?.code === "bad_request" && error.issues?.some((issue) => issue.path === "code")) return NOT_A_CODE;
      return describeError(answer.status, answer.data);
  }
}

function row(machine, onRevoke) {
  const li = document.createElement("li");
  li.dataset.machine = machine.id;
  li.dataset.state = machine.online ? "online" : "offline";
  const head = document.createElement("div");
  head.className = "row-head";
  const dot = document.createElement("span");
  dot.className = "dot";
  dot.setAttribute("aria-hidden", "true");
  const name = document.createElement("strong");
  name.className = "name";
  name.textContent = machine.name;
  const state = document.createElement("span");
  state.className = "state";
  state.textContent = machine.online ? "online" : "offline";
  const revoke = document.createElement("button");
  revoke.type = "button";
  revoke.className = "revoke";
  revoke.textContent = "Remove";
  revoke.addEventListener("click", () => onRevoke(machine));
  head.append(dot, name, state, revoke);
  const servers = document.createElement("p");
  servers.className = "hint";
  servers.textContent = machine.servers.length > 0 ? `Servers: ${machine.servers.map((s) => `${machine.name}-${s}`).join(", ")}` : "No servers announced yet.";
  li.append(head, servers);
  return li;
}

/** @param {{ sessionId: () => string | null }} options */
export function setupMyMachines({ sessionId }) {
  const dialog = $("my-machines-dialog");
  const status = $("my-machines-status");
  const say = (text) => (status.textContent = text);

  async function load() {
    const answer = await requestOrRefusal("/api/machines");
    const list = $("my-machines-list");
    list.replaceChildren();
    if (!answer.ok) return say(describeError(answer.status, answer.data));
    const machines = answer.data?.machines ?? [];
    for (const machine of machines) list.append(row(machine, revoke));
    if (machines.length === 0) {
      const empty = document.createElement("li");
      empty.className = "empty hint";
      empty.textContent = `No machines yet. Run \`npx mcp-local-bridge connect ${location.origin}\` on one.`;
      list.append(empty);
    }
  }

  async function revoke(machine) {
    const sure = await confirmAction({
      title: `Remove "${machine.name}"?`,
      text: "Its bridge is disconnected at once and its credential stops working. Pair it again to use it.",
      confirm: "Remove",
    });
    if (!sure) return;
    const answer = await requestOrRefusal(`/api/machines/${machine.id}`, { method: "DELETE" });
    say(answer.ok ? `Removed "${machine.name}".` : describeError(answer.status, answer.data));
    // This chat reads its servers again now, not at its next turn: the machine's servers leave its list.
    const id = sessionId();
    if (answer.ok && id) await requestOrRefusal(`/api/servers/restart?session=${encodeURIComponent(id)}`, { method: "POST", body: {} });
    await load();
  }

  /** What the code stands for, or why it is refused; Approve only for a code that is waiting. */
  async function describe(code) {
    const what = $("pair-what");
    const shown = (text, refused) => {
      what.textContent = text;
      what.dataset.state = refused ? "refused" : "waiting";
      $("pair-approve").disabled = refused;
    };
    if (!code) return shown("", false);
    if (!CODE.test(code.toUpperCase())) return shown(NOT_A_CODE, true);
    const answer = await requestOrRefusal(`/api/machines/pair/${encodeURIComponent(code)}`);
    // The person may have typed another code meanwhile: only the answer about the code shown counts.
    if ($("pair-code").value.trim() !== code) return;
    if (answer.ok)
      shown(
        `A machine named "${answer.data.name}" asks to join your account. Approve only a code your own terminal showed just now: whoever approves it gets that machine's servers in their chats.`,
        false,
      );
    else shown(codeRefused(answer), true);
  }

  async function approve(event) {
    event.preventDefault();
    const code = $("pair-code").value.trim();
    if (!CODE.test(code.toUpperCase())) return say(NOT_A_CODE);
    const answer = await requestOrRefusal("/api/machines/approve", { method: "POST", body: { code } });
    if (answer.ok) {
      say(`Paired "${answer.data.machine.name}". It comes online in a moment.`);
      $("pair-code").value = "";
      $("pair-what").textContent = "";
      await load();
    } else say(codeRefused(answer));
  }

  async function open(code) {
    say("");
    if (code) {
      $("pair-code").value = code;
      await describe(code);
    }
    await load();
    if (!dialog.open) dialog.showModal();
  }

  $("my-machines-open").addEventListener("click", () => void open());
  $("my-machines-close").addEventListener("click", () => dialog.close());
  $("pair-form").addEventListener("submit", (event) => void approve(event));
  $("pair-code").addEventListener("change", () => void describe($("pair-code").value.trim()));
  // What was said was about the code before the edit; Approve is for the code as it is now.
  $("pair-code").addEventListener("input", () => {
    $("pair-what").textContent = "";
    delete $("pair-what").dataset.state;
    $("pair-approve").disabled = false;
  });
  $("my-machines-refresh").addEventListener("click", () => void load());

  // The link the bridge printed: #pair=CODE opens the dialog with the code filled in.
  const fromHash = () => {
    const match = /(?:^#|&)pair=([A-Za-z0-9-]{8,9})/.exec(location.hash);
    if (!match) return;
    history.replaceState(null, "", location.pathname + location.search);
    void open(match[1].toUpperCase());
  };
  window.addEventListener("hashchange", fromHash);
  fromHash();
  return { open };
}
