// The page a shared link shows, rendered on the Worker: no script at all (the CSP allows
// none), every value escaped by hono/html (answers and summaries go through Markdown,
// share-markdown.ts, which escapes all but its own tags), tool cards as <details>. Only images a tool
// returned as base64 of a known image type are shown, as data: URLs the CSP admits.
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { Snapshot, SnapshotEntry } from "./snapshot";
import { scriptlessPageHeaders } from "../shared/page-headers";
import { sizeText } from "../files/errors";
import { markdownHtml } from "./share-markdown";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The headers of every share page: images only as the data: URLs it holds. */
export const SHARE_PAGE_HEADERS = scriptlessPageHeaders("data:");

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const time = (ms: number): string => new Date(ms).toISOString().replace("T", " ").slice(0, 16);
const pretty = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? ""));

/** A tool result as a reader wants it: its text blocks as text, its images shown, anything else as JSON. */
function resultBody(result: unknown): Html {
  if (!Array.isArray(result)) return html`<pre>${pretty(result)}</pre>`;
  return html`${result.map((block: unknown) => {
    const b = (typeof block === "object" && block !== null ? block : {}) as Record<string, unknown>;
    if (b.type === "text" && typeof b.text === "string") return html`<pre>${b.text}</pre>`;
    if (b.type === "image" && typeof b.mimeType === "string" && IMAGE_TYPES.has(b.mimeType) && typeof b.data === "string" && BASE64.test(b.data))
      return html`<img alt="An image the tool returned" src="data:${b.mimeType};base64,${b.data}">`;
    return html`<pre>${pretty(block)}</pre>`;
  })}`;
}

function entry(e: SnapshotEntry): Html | "" {
  switch (e.kind) {
    case "user":
      return html`<li class="msg user"><div class="who">You</div><div class="text">${e.text ?? ""}</div>${
        e.attachments?.length ? html`<div class="attached">Attached: ${e.attachments.join(", ")}</div>` : ""
      }${e.files?.length ? html`<div class="attached">Files (not shared): ${e.files.map((f) => `${f.name} (${sizeText(f.size)})`).join(", ")}</div>` : ""}</li>`;
    case "assistant":
      return e.text
        ? html`<li class="msg assistant"><div class="who">Assistant${e.model ? html` <span class="model">${e.model}</span>` : ""}</div><div class="text md">${raw(markdownHtml(e.text))}</div></li>`
        : "";
    case "tool_call": {
      const state = !e.done ? "no result" : e.error !== undefined ? "error" : "done";
      return html`<li class="tool"><details><summary><span class="tool-name">${e.server ?? ""} · ${e.tool ?? ""}</span> <span class="tool-state tool-${state.replace(" ", "-")}">${state}</span></summary>
${e.arguments === undefined ? "" : html`<h3>Arguments</h3><pre>${pretty(e.arguments)}</pre>`}
${!e.done ? "" : e.error !== undefined ? html`<h3>Error</h3><pre>${e.error}</pre>` : html`<h3>Result</h3>${resultBody(e.result)}`}
</details></li>`;
    }
    case "summary":
      return html`<li class="msg summary"><div class="who">Summary of earlier turns</div><div class="text md">${raw(markdownHtml(e.text ?? ""))}</div></li>`;
    default:
      return html`<li class="msg ${e.kind}">${e.text ?? ""}</li>`;
  }
}

export function sharePage(snapshot: Snapshot, context: { sharedBy: string }): Html {
  const title = snapshot.title?.trim() || "A conversation";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${title} · shared from edgehost</title>
<link rel="stylesheet" href="/share.css">
</head>
<body class="shared">
<header class="shared-header">
  <h1>${title}</h1>
  <p>Shared by ${context.sharedBy} · a read-only snapshot as of ${time(snapshot.sharedAt)} UTC · <a href="/">Open edgehost</a></p>
</header>
<main>
<ol class="messages">
${snapshot.entries.map((e) => entry(e))}
</ol>
${snapshot.entries.length === 0 ? html`<p class="empty">This conversation was empty when it was shared.</p>` : ""}
</main>
</body>
</html>`;
}

export function shareGonePage(): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Link not available · edgehost</title>
<link rel="stylesheet" href="/share.css">
</head>
<body class="shared">
<header class="shared-header"><h1>This link is not available</h1></header>
<main><p class="empty">Its owner revoked it or deleted the conversation, or it never existed. <a href="/">Open edgehost</a></p></main>
</body>
</html>`;
}

/** A signed-out viewer: shared links are for the people of this deployment. */
export function shareSignInPage(): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to read · edgehost</title>
<link rel="stylesheet" href="/share.css">
</head>
<body class="shared">
<header class="shared-header"><h1>Sign in to read this conversation</h1></header>
<main><p class="empty">Shared conversations are read by people who can sign in to this edgehost. <a href="/">Sign in</a>, then open the link again.</p></main>
</body>
</html>`;
}
