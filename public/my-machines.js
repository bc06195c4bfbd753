// "My machines": the developer machines paired with this account (`mcp-local-bridge
// connect URL`), online or offline, their servers, and revoke; and approving a pairing
// code, typed in or arriving as #pair=CODE from the link the bridge printed. The page
// shows the name the machine asked for before the user approves, and says plainly that
// approving gives that machine's servers to this account's chats.
import { describeError, request } from "./api.js";
import { confirmAction } from "./dialogs.js";
import { byId } from "./dom.js";

const $ = byId;

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

export function setupMyMachines() {
  const dialog = $("my-machines-dialog");
  const status = $("my-machines-status");
  const say = (text) => (status.textContent = text);

  async function load() {
    const answer = await request("/api/machines");
    const list = $("my-machines-list");
    list.replaceChildren();
    if (!answer.ok) return say(describeError(answer.data, answer.status));
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
    const answer = await request(`/api/machines/${machine.id}`, { method: "DELETE" });
    say(answer.ok ? `Removed "${machine.name}".` : describeError(answer.data, answer.status));
    await load();
  }

  async function describe(code) {
    const answer = await request(`/api/machines/pair/${encodeURIComponent(code)}`);
    $("pair-what").textContent = answer.ok
      ? `A machine named "${answer.data.name}" asks to join your account. Approve only a code your own terminal showed just now: whoever approves it gets that machine's servers in their chats.`
      : describeError(answer.data, answer.status);
    $("pair-approve").disabled = !answer.ok;
  }

  async function approve(event) {
    event.preventDefault();
    const code = $("pair-code").value.trim();
    const answer = await request("/api/machines/approve", { method: "POST", body: { code } });
    if (answer.ok) {
      say(`Paired "${answer.data.machine.name}". It comes online in a moment.`);
      $("pair-code").value = "";
      $("pair-what").textContent = "";
      await load();
    } else say(describeError(answer.data, answer.status));
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
