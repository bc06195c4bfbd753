// The document shell the Worker's own small pages share (the OAuth callback, the
// /connect pages): doctype, charset, a phone's viewport, a referrer policy and a title.
// Callers pass already-escaped markup; the title is escaped here.

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string);

export interface HtmlDocument {
  title: string;
  /** What the page's links and form posts send as referrer. */
  referrer: "no-referrer" | "same-origin";
  /** Extra markup for <head> (styles, scripts, a refresh). */
  head?: string;
  body: string;
  bodyClass?: string;
}

export function htmlDocument({ title, referrer, head = "", body, bodyClass }: HtmlDocument): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${referrer}">
<title>${escapeHtml(title)} · edgehost</title>
${head}</head>
<body${bodyClass ? ` class="${bodyClass}"` : ""}>
<main>
${body}
</main>
</body>
</html>`;
}
