// Files from the user's computer: the 📎 button, dropping files on the chat, and pasting
// (a pasted screenshot becomes an image). Each file is checked against the limits the
// Worker states (GET /api/files/limits, shown before any upload), uploaded at once to the
// open session (POST /sessions/{id}/files, raw bytes) and shown as a chip: uploading, ready
// (with a preview for images) or refused with the server's reason, which names the file.
// The next message carries the ready ones by id; a chip removed before sending deletes
// its upload. Under a sent message the chips link to the file (served to its owner only).
import { describeError, NetworkError, request } from "../core/api.js";
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";

/** @typedef {import("../core/types").FileRef} FileRef */
/** @typedef {{ key: number, name: string, size: number, status: "uploading" | "ready" | "error", file?: FileRef, error?: string }} FileChip */

/** @type {{ maxFileBytes: number, maxFiles: number, quotaBytes: number, usedBytes: number, available: boolean } | null} */
let limits = null;
/** @type {FileChip[]} */
let chips = [];
let nextKey = 1;
/** The session the chips were uploaded to: switching sessions drops them. */
let chipsSession = /** @type {string | null} */ (null);

const box = () => byId("composer-files");

export function sizeText(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
}

/** What the page says before an upload: kinds, size and count limits, and the space left. */
function limitsText() {
  if (!limits) return "Attach images (PNG, JPEG, GIF, WebP), PDFs, or text and code files.";
  if (!limits.available) return "Attaching files is not set up on this deployment.";
  const left = Math.max(0, limits.quotaBytes - limits.usedBytes);
  return `Images (PNG, JPEG, GIF, WebP), PDFs, text and code files · up to ${sizeText(limits.maxFileBytes)} each, ${limits.maxFiles} per message · ${sizeText(left)} of ${sizeText(limits.quotaBytes)} left`;
}

async function loadLimits() {
  try {
    const { ok, data } = await request("/api/files/limits");
    if (ok) limits = data;
  } catch {
    // Offline: the server checks again at upload time.
  }
  renderLimits();
}

function renderLimits() {
  const text = limitsText();
  byId("file-limits").textContent = text;
  byId("attach-file").title = `Attach files from your computer (or drop or paste them). ${text}`;
  byId("drop-hint").textContent = text;
}

/** Queues files for upload to the open session; those past a limit become refused chips at once. */
export function addFiles(/** @type {File[]} */ files) {
  if (!state.sessionId || files.length === 0) return;
  if (chipsSession !== state.sessionId) dropChips();
  chipsSession = state.sessionId;
  for (const file of files) {
    const chip = /** @type {FileChip} */ ({ key: nextKey++, name: file.name, size: file.size, status: "uploading" });
    chips.push(chip);
    const refused = refusedLocally(file);
    if (refused) {
      chip.status = "error";
      chip.error = refused;
      continue;
    }
    void upload(chip, file, state.sessionId);
  }
  render();
}

/** The limits the page knows, checked before a byte is sent (the Worker checks them all again). */
function refusedLocally(/** @type {File} */ file) {
  if (!limits) return undefined;
  if (file.size > limits.maxFileBytes) return `"${file.name}" is larger than ${sizeText(limits.maxFileBytes)}, the most one file may have`;
  if (chips.filter((c) => c.status !== "error").length > limits.maxFiles)
    return `"${file.name}" is one file too many: a message carries at most ${limits.maxFiles}`;
  return undefined;
}

async function upload(/** @type {FileChip} */ chip, /** @type {File} */ file, /** @type {string} */ sessionId) {
  try {
    const response = await fetch(`/sessions/${encodeURIComponent(sessionId)}/files`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/octet-stream", "x-file-name": encodeURIComponent(file.name), "x-file-type": file.type },
      body: file,
    });
    const data = await response.json().catch(() => null);
    if (response.ok) {
      chip.status = "ready";
      chip.file = data.file;
      if (limits) limits.usedBytes = data.usedBytes;
      renderLimits();
    } else {
      chip.status = "error";
      chip.error = data?.error?.message ?? describeError(response.status, data);
    }
  } catch {
    chip.status = "error";
    chip.error = `"${file.name}" was not sent: ${new NetworkError().message}`;
  }
  // Removed (or the session changed) while it uploaded: the upload goes too.
  if (!chips.includes(chip) && chip.file) void request(`/api/files/${chip.file.id}`, { method: "DELETE" });
  render();
}

/** Whether the box holds files (ready, uploading or refused). */
export const hasFiles = () => chips.length > 0;

/** A file is still on its way up: a message or prompt waits for it (composer.js canStart). */
export const filesUploading = () => chips.some((c) => c.status === "uploading");

/** The files for the message being sent (the chips leave the box); null while one still uploads. */
export function takeFiles() {
  if (filesUploading()) return null;
  const ready = chips.filter((c) => c.status === "ready" && c.file).map((c) => /** @type {FileRef} */ (c.file));
  chips = [];
  render();
  return ready;
}

/** Puts files back in the box (their message was refused). */
export function restoreFiles(/** @type {FileRef[] | undefined} */ files) {
  if (!files?.length) return;
  chipsSession = state.sessionId;
  for (const file of files) chips.push({ key: nextKey++, name: file.name, size: file.size, status: "ready", file });
  render();
}

function remove(/** @type {FileChip} */ chip) {
  chips = chips.filter((c) => c !== chip);
  if (chip.file) void request(`/api/files/${chip.file.id}`, { method: "DELETE" }).then(loadLimits);
  render();
  byId("composer-input").focus();
}

/** Another session opened: the chips uploaded to the last one are deleted. */
function dropChips() {
  for (const chip of [...chips]) remove(chip);
}

function render() {
  const el = box();
  el.replaceChildren(...chips.map((chip) => composerChip(chip)));
  el.hidden = chips.length === 0;
  byId("file-limits").hidden = chips.length === 0;
}

function composerChip(/** @type {FileChip} */ chip) {
  const el = document.createElement("span");
  el.className = "chip file-chip";
  el.dataset.status = chip.status;
  // The preview is the stored file, served back by the Worker: what the model will see.
  el.append(chip.file?.kind === "image" ? thumbnail(`/api/files/${encodeURIComponent(chip.file.id)}`) : kindIcon(chip.file?.kind));
  const label = document.createElement("span");
  label.className = "chip-label";
  label.textContent = `${chip.name} · ${chip.status === "uploading" ? "uploading…" : sizeText(chip.size)}`;
  el.append(label);
  const close = document.createElement("button");
  close.type = "button";
  close.className = "chip-remove";
  close.setAttribute("aria-label", `Remove ${chip.name}`);
  close.textContent = "×";
  close.addEventListener("click", () => remove(chip));
  el.append(close);
  if (chip.error) {
    el.title = chip.error;
    const why = document.createElement("span");
    why.className = "chip-error";
    why.setAttribute("role", "alert");
    why.textContent = chip.error;
    el.append(why);
  }
  return el;
}

function thumbnail(/** @type {string} */ src) {
  const img = document.createElement("img");
  img.className = "file-thumb";
  img.alt = "";
  img.src = src;
  return img;
}

// Short labels, not emoji: not every system has an emoji font.
const LABELS = { image: "IMG", pdf: "PDF", text: "TXT" };

function kindIcon(/** @type {string | undefined} */ kind) {
  const icon = document.createElement("span");
  icon.className = "file-icon";
  icon.setAttribute("aria-hidden", "true");
  icon.textContent = LABELS[kind] ?? "FILE";
  return icon;
}

/** The files a user entry carried, under its text: links to each (images with a preview). */
export function decorateFiles(/** @type {HTMLElement} */ li, /** @type {{ files?: FileRef[] }} */ entry) {
  if (!entry.files?.length) return;
  const list = document.createElement("ul");
  list.className = "chips file-chips";
  list.setAttribute("aria-label", "Attached files");
  for (const file of entry.files) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.className = "chip file-chip";
    link.dataset.kind = file.kind;
    link.href = `/api/files/${encodeURIComponent(file.id)}`;
    link.target = "_blank";
    link.rel = "noopener";
    link.title = `${file.name} (${file.mimeType}, ${sizeText(file.size)})`;
    link.append(file.kind === "image" ? thumbnail(link.href) : kindIcon(file.kind));
    const label = document.createElement("span");
    label.className = "chip-label";
    label.textContent = file.name;
    link.append(label);
    item.append(link);
    list.append(item);
  }
  li.append(list);
}

/** The 📎 button, dropping on the chat and pasting into the box. */
export function setupFileAttachments() {
  const input = /** @type {HTMLInputElement} */ (byId("file-input"));
  const attach = byId("attach-file");
  attach.addEventListener("click", () => {
    void loadLimits();
    input.click();
  });
  // The limits are read when a person reaches for the button (its title states them), not
  // on every load: most loads attach nothing, and a cold load is one request fewer.
  const firstReach = () => {
    attach.removeEventListener("pointerenter", firstReach);
    attach.removeEventListener("focus", firstReach);
    if (!limits) void loadLimits();
  };
  attach.addEventListener("pointerenter", firstReach);
  attach.addEventListener("focus", firstReach);
  input.addEventListener("change", () => {
    addFiles([...(input.files ?? [])]);
    input.value = "";
  });

  const chat = byId("chat");
  let depth = 0;
  const dragsFiles = (/** @type {DragEvent} */ event) => event.dataTransfer?.types.includes("Files") ?? false;
  chat.addEventListener("dragenter", (/** @type {DragEvent} */ event) => {
    if (!dragsFiles(event)) return;
    if (!limits) void loadLimits();
    depth++;
    chat.classList.add("dropping");
  });
  chat.addEventListener("dragover", (/** @type {DragEvent} */ event) => {
    if (!dragsFiles(event)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
  });
  chat.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) chat.classList.remove("dropping");
  });
  chat.addEventListener("drop", (/** @type {DragEvent} */ event) => {
    depth = 0;
    chat.classList.remove("dropping");
    if (!event.dataTransfer?.files.length) return;
    event.preventDefault();
    addFiles([...event.dataTransfer.files]);
  });

  byId("composer-input").addEventListener("paste", (/** @type {ClipboardEvent} */ event) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    // Text pasted with an image (some apps put both) stays text; the image is attached.
    if (!event.clipboardData?.getData("text/plain")) event.preventDefault();
    addFiles(files.map(named));
  });

  subscribe(["sessionId"], () => {
    if (chipsSession && chipsSession !== state.sessionId) {
      dropChips();
      chipsSession = null;
    }
  });
  renderLimits();
}

/** A pasted screenshot is "image.png" in every browser: it gets a name of its own. */
function named(/** @type {File} */ file) {
  if (!/^image\.\w+$/.test(file.name)) return file;
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
  return new File([file], `pasted-${stamp}.${file.name.split(".").pop()}`, { type: file.type });
}
