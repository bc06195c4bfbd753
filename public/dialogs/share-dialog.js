// Sharing a conversation (POST /sessions/{id}/shares): the dialog makes a read-only link
// to a snapshot of the session as it is now, lists the session's links with Copy and
// Revoke (DELETE /api/shares/{id}), and says who can read them. Links are absolute
// addresses of this deployment; nothing else about the session is in them.
import { describeError, NetworkError, request } from "../core/api.js";
import { confirmAction } from "./dialogs.js";
import { byId } from "../core/dom.js";

const $ = byId;
const when = (ms) => new Date(ms).toLocaleString();

export function setupShareDialog() {
  const dialog = $("share-dialog");
  const say = (text) => ($("share-status").textContent = text);
  /** @type {string | null} */
  let sessionId = null;

  /** @param {{ id: string, url: string, createdAt: number }} share */
  function row(share) {
    const li = document.createElement("li");
    li.dataset.share = share.id;
    const head = document.createElement("div");
    head.className = "row-head";
    const link = document.createElement("input");
    link.className = "share-url";
    link.readOnly = true;
    link.value = new URL(share.url, location.origin).href;
    link.setAttribute("aria-label", `Link made ${when(share.createdAt)}`);
    link.addEventListener("focus", () => link.select());
    const copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy-link";
    copy.textContent = "Copy";
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(link.value);
        say("Link copied.");
      } catch {
        link.select();
        say("Select the link and copy it.");
      }
    });
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.className = "revoke danger";
    revoke.textContent = "Revoke";
    revoke.addEventListener("click", () => void revokeShare(share));
    head.append(link, copy, revoke);
    const made = document.createElement("p");
    made.className = "hint";
    made.textContent = `Snapshot of ${when(share.createdAt)}`;
    li.append(head, made);
    return li;
  }

  async function load() {
    const list = $("share-links");
    if (!sessionId) return;
    const answer = await request(`/api/shares?session=${encodeURIComponent(sessionId)}`);
    if (!answer.ok) return say(describeError(answer.status, answer.data));
    const shares = answer.data?.shares ?? [];
    list.replaceChildren(...shares.map(row));
    if (shares.length === 0) {
      const empty = document.createElement("li");
      empty.className = "empty hint";
      empty.textContent = "No links yet.";
      list.append(empty);
    }
  }

  async function create() {
    if (!sessionId) return;
    $("share-create").disabled = true;
    try {
      const answer = await request(`/sessions/${encodeURIComponent(sessionId)}/shares`, { method: "POST", body: {} });
      say(answer.ok ? "Link created: copy it from the list." : `Could not share: ${describeError(answer.status, answer.data)}`);
      await load();
      if (answer.ok) $("share-links").querySelector(`li[data-share="${answer.data.id}"] .share-url`)?.focus();
    } catch (error) {
      say(error instanceof NetworkError ? error.message : "Could not share.");
    } finally {
      $("share-create").disabled = false;
    }
  }

  /** @param {{ id: string, createdAt: number }} share */
  async function revokeShare(share) {
    const sure = await confirmAction({
      title: "Revoke this link?",
      text: `The snapshot of ${when(share.createdAt)} stops showing to anyone who has the link, at once.`,
      confirm: "Revoke",
    });
    if (!sure) return;
    const answer = await request(`/api/shares/${encodeURIComponent(share.id)}`, { method: "DELETE" });
    say(answer.ok || answer.status === 404 ? "Link revoked." : `Could not revoke: ${describeError(answer.status, answer.data)}`);
    await load();
  }

  /** @param {string} id @param {string} title */
  async function open(id, title) {
    sessionId = id;
    say("");
    $("share-session-title").textContent = title;
    $("share-links").replaceChildren();
    if (!dialog.open) dialog.showModal();
    await load();
  }

  $("share-create").addEventListener("click", () => void create());
  $("share-close").addEventListener("click", () => dialog.close());
  return { open };
}
