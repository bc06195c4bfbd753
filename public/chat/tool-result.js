// How a tool result reads, in the chat's tool cards and in the tool console.
// The Worker sends a card's result as the history keeps it (`recorded` of
// src/orchestrator/tool-results.ts `reduceToolResult`): the tool's structuredContent,
// or the text of its MCP content parts joined by line breaks; an error is a string.
// A call made with POST /api/tools and a session id is kept in that session's
// history with the MCP content array itself. The console gets
// `{content, structuredContent?, isError?}`.
//
// - Text reads as text, with its line breaks. Text that is a JSON object or array
//   (many servers answer JSON.stringify(...)) is shown indented like structured content.
// - Structured content is JSON with a 2-space indent. An object with one string
//   property and nothing else ({"content": "..."}, as server-filesystem answers) is
//   that text: there is nothing else in it to show.
// - MCP content parts: text parts as text; images, audio, links and binary resources
//   as a one-line placeholder (never their base64 data).
// - The images and audio of a call that just completed (the `status` message's
//   `media`) are shown in its card: `mediaElements`.

/** @typedef {{ kind: "text" | "json" | "error", text: string }} Shown */

/** @returns {Shown} */
const json = (value) => ({ kind: "json", text: JSON.stringify(value, null, 2) ?? String(value) });

const isContentPart = (part) => part !== null && typeof part === "object" && typeof part.type === "string";

/** Bytes that base64 text stands for. */
function decodedSize(base64) {
  const data = base64.replace(/\s/g, "");
  return Math.max(0, Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0));
}

/** 812 B, 3.9 KB, 1.2 MB: as the Worker names sizes in its notes. */
function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KB"] : [bytes / (1024 * 1024), "MB"];
  return `${Number(value.toFixed(1))} ${unit}`;
}

/** One MCP content part as a line of text (media as a placeholder, never their base64). */
function partText(part) {
  switch (part.type) {
    case "text":
      return String(part.text ?? "");
    case "resource": {
      const { uri = "", mimeType, text, blob } = part.resource ?? {};
      if (typeof text === "string") return text;
      return `[resource ${uri}: ${mimeType ?? "binary data"}${typeof blob === "string" ? `, ${formatSize(decodedSize(blob))}` : ""}]`;
    }
    case "resource_link":
      return `Resource link "${part.name ?? ""}": ${part.uri ?? ""}`;
    case "image":
    case "audio":
      return `[${part.type}: ${part.mimeType ?? "unknown type"}${typeof part.data === "string" ? `, ${formatSize(decodedSize(part.data))}` : ""}]`;
    default:
      return JSON.stringify(part);
  }
}

/** Text, or indented JSON when the text is a JSON object or array. @param {string} text @returns {Shown} */
function fromText(text) {
  const trimmed = text.trim();
  if ((trimmed.startsWith("{") && trimmed.endsWith("}")) || (trimmed.startsWith("[") && trimmed.endsWith("]"))) {
    try {
      return json(JSON.parse(trimmed));
    } catch {
      // Not JSON after all: it reads as text.
    }
  }
  return { kind: "text", text };
}

/** Text of MCP content parts, joined by line breaks. */
export function contentText(parts) {
  return parts.map(partText).join("\n");
}

/** Structured content as shown: a lone string property is its text, anything else indented JSON. */
export function showStructured(value) {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.length === 1 && typeof entries[0][1] === "string") return fromText(entries[0][1]);
  }
  return json(value);
}

/** A chat card's `result` (a history entry's or a `status` message's) as shown. @returns {Shown} */
export function showResult(result) {
  if (result === undefined || result === null) return { kind: "text", text: "" };
  if (typeof result === "string") return fromText(result);
  if (Array.isArray(result) && result.length > 0 && result.every(isContentPart)) return fromText(contentText(result));
  return showStructured(result);
}

/** Puts a shown result into a <pre>: its text, and `data-kind` ("text", "json" or "error") for styling and tests. */
export function fillResult(pre, shown) {
  pre.dataset.kind = shown.kind;
  pre.textContent = shown.text;
}

/** Images the page shows. Never SVG: it is a document (scripts, external loads), not a picture. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const AUDIO_TYPE = /^audio\/[a-z0-9][a-z0-9.+-]*$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A tool result's media (`status` `media`: `{type, mimeType, data}` with base64 data) as
 * elements for a card: an <img> for a PNG, JPEG, GIF or WebP image, <audio controls>
 * for audio, each from a `data:` URL (nothing is fetched); anything else (an SVG, a
 * type that is not what it says) a line saying it is not shown. `label` names the tool.
 * @returns {HTMLElement[]}
 */
export function mediaElements(media, label) {
  const counts = { image: 0, audio: 0 };
  const out = [];
  for (const part of media) {
    if (!part || (part.type !== "image" && part.type !== "audio")) continue;
    const n = ++counts[part.type];
    const mimeType = String(part.mimeType ?? "")
      .trim()
      .toLowerCase();
    const data = typeof part.data === "string" ? part.data.replace(/\s/g, "") : "";
    const name = `${label}: ${part.type} ${n} (${mimeType || "no type"})`;
    const typeOk = part.type === "image" ? IMAGE_TYPES.has(mimeType) : AUDIO_TYPE.test(mimeType);
    if (!typeOk || !BASE64.test(data)) {
      const note = document.createElement("p");
      note.className = "media-refused";
      const allowed = part.type === "image" ? "only PNG, JPEG, GIF and WebP images are" : "only audio/* types are";
      note.textContent = `[${part.type} ${n} not shown: ${typeOk ? "its data is not base64" : `${mimeType || "no type"} is not a type shown here; ${allowed}`}]`;
      out.push(note);
    } else if (part.type === "image") {
      const img = document.createElement("img");
      img.className = "tool-image";
      img.alt = name;
      img.decoding = "async";
      img.src = `data:${mimeType};base64,${data}`;
      out.push(img);
    } else {
      const audio = document.createElement("audio");
      audio.className = "tool-audio";
      audio.controls = true;
      audio.preload = "metadata";
      audio.setAttribute("aria-label", name);
      audio.src = `data:${mimeType};base64,${data}`;
      out.push(audio);
    }
  }
  return out;
}
