// The /admin page, rendered on the Worker: no script, every value escaped by hono/html.
// Four tables an operator reads top to bottom: the last errors (with the request and
// turn ids to search Workers Logs for), the users, the servers' health, the tools.
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { DECISION_KINDS } from "../ops/reports";
import type { AdminView } from "./admin-view";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const time = (ms: number | null): string => (ms === null ? "—" : new Date(ms).toISOString().replace("T", " ").slice(0, 19));
const num = (value: number | null): string => (value === null ? "—" : value.toLocaleString("en-US"));
const ms = (value: number | null): string => (value === null ? "—" : `${value.toLocaleString("en-US")} ms`);

function table(caption: string, headings: string[], rows: Html[], empty: string): Html {
  return html`<section>
  <h2>${caption}</h2>
  ${
    rows.length === 0
      ? html`<p class="admin-empty">${empty}</p>`
      : // Focusable and named: a table wider than a phone scrolls, and the keyboard must reach it.
        html`<div class="admin-scroll" tabindex="0" role="region" aria-label="${caption}"><table>
    <thead><tr>${headings.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
</section>`;
}

export function adminPage(view: AdminView, context: { operator: string }): Html {
  const errors = view.errors.map(
    (e) => html`<tr>
      <td>${time(e.at)}</td><td>${e.source}</td><td><code>${e.code}</code></td><td>${e.message}</td>
      <td>${e.user ?? "—"}</td><td>${e.server ? `${e.server}${e.tool ? ` · ${e.tool}` : ""}` : "—"}</td>
      <td><code class="admin-id">${e.requestId ?? "—"}</code></td><td><code class="admin-id">${e.turnId ?? "—"}</code></td>
    </tr>`,
  );
  const users = view.users.map(
    (u) => html`<tr>
      <td>${u.name}</td><td>${num(u.sessions)}</td><td>${num(u.turns)}</td><td>${num(u.tokensToday)}</td>
      <td>${num(u.machines)}</td><td>${time(u.lastActivity ?? u.lastSeen)}</td><td>${time(u.firstSeen)}</td>
    </tr>`,
  );
  const servers = view.servers.map(
    (s) => html`<tr>
      <td>${s.name}</td><td>${s.owner ? `${s.owner}'s` : "mcp.json"}</td>
      <td><span class="admin-state admin-state-${s.state}">${s.state}</span></td><td>${s.lastError ?? "—"}</td><td>${time(s.at)}</td>
    </tr>`,
  );
  const tools = view.tools.map(
    (t) => html`<tr>
      <td>${t.server}</td><td>${t.tool}</td><td>${num(t.calls)}</td><td>${num(t.errors)}</td>
      <td>${ms(t.p50Ms)}</td><td>${ms(t.p95Ms)}</td><td>${ms(t.meanMs)}</td><td>${ms(t.maxMs)}</td><td>${time(t.lastAt)}</td>
    </tr>`,
  );
  const decisions = DECISION_KINDS.filter((k) => (view.decisions[k] ?? 0) > 0).map(
    (k) => html`<tr><td>${k.replaceAll("_", " ")}</td><td>${num(view.decisions[k] ?? 0)}</td></tr>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Operations · edgehost</title>
<link rel="stylesheet" href="/style.css">
<link rel="stylesheet" href="/admin.css">
</head>
<body class="admin">
<header class="admin-header">
  <h1>edgehost operations</h1>
  <p>Signed in as ${context.operator} · as of ${time(view.generatedAt)} UTC · <a href="/admin">Refresh</a> · <a href="/api/admin">JSON</a> · <a href="/">Chat</a></p>
</header>
<main>
${table("Last errors", ["When (UTC)", "Where", "Code", "Message", "User", "Server · tool", "Request id", "Turn id"], errors, "No errors recorded.")}
${table("Users", ["User", "Sessions", "Turns", "Tokens today", "Machines", "Last active", "First seen"], users, "No user has been seen yet.")}
${table("Servers", ["Server", "From", "State", "Last error", "Reported"], servers, "No session has reported its servers yet.")}
${table("Tools across sessions", ["Server", "Tool", "Calls", "Errors", "p50", "p95", "Mean", "Max", "Last call"], tools, "No tool has been called yet.")}
${table("Tool calls by decision", ["How it was decided", "Calls"], decisions, "No tool call has been decided yet.")}
<p>Notifications dropped (a person reached <code>PUSH_PER_HOUR</code>): ${num(view.pushesDropped)}</p>
</main>
</body>
</html>`;
}
