// The pages of /connect/authorize (src/http/connect.ts): the same-site bounce, the sign-in
// form, the consent page and the error page. Self-contained: styles inline, no script, no
// request to anywhere (CSP below), light and dark, readable on a phone. Everything a client
// registered (its name, its redirect host) is escaped: it is the client's own text.
import { escapeHtml, htmlDocument } from "./html-document";

/** No script, nothing loaded; the forms post to this origin (the redirect after it goes to the client, so no form-action). */
export const CONNECT_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

const STYLE = `
:root { color-scheme: light dark; --bg: #f7f7f8; --card: #fff; --text: #1b1b1f; --muted: #5d5d66; --line: #d9d9de; --accent: #2459d6; --warn-bg: #fff4d6; --warn: #6b4a00; }
@media (prefers-color-scheme: dark) { :root { --bg: #141417; --card: #1e1e23; --text: #ececf0; --muted: #a4a4ae; --line: #34343c; --accent: #7fa4ff; --warn-bg: #3a2f10; --warn: #f3d27a; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 34rem; margin: 2rem auto; padding: 1.5rem; background: var(--card); border: 1px solid var(--line); border-radius: 12px; }
@media (max-width: 600px) { main { margin: 0; min-height: 100vh; border: 0; border-radius: 0; padding: 1.25rem; } }
h1 { font-size: 1.35rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1rem; margin: 1rem 0 .3rem; }
h2 + p.muted { margin: 0; }
p, li { overflow-wrap: anywhere; }
.muted { color: var(--muted); font-size: .9rem; }
.warn { background: var(--warn-bg); color: var(--warn); padding: .6rem .8rem; border-radius: 8px; }
ul { padding-left: 1.2rem; margin: .25rem 0; }
label.check { display: flex; gap: .6rem; align-items: flex-start; margin: 1.25rem 0; }
label.check input { margin-top: .3rem; width: 1.1rem; height: 1.1rem; }
input[type=password] { width: 100%; padding: .6rem; font: inherit; color: var(--text); background: var(--bg); border: 1px solid var(--line); border-radius: 8px; }
.actions { display: flex; gap: .75rem; flex-wrap: wrap; margin-top: 1.25rem; }
button { font: inherit; padding: .6rem 1.2rem; border-radius: 8px; border: 1px solid var(--line); background: var(--card); color: var(--text); cursor: pointer; min-height: 44px; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
@media (prefers-color-scheme: dark) { button.primary { color: #0b0b0e; } }
@media (max-width: 600px) { .actions button { flex: 1 1 100%; } }
`;

// Referrer "same-origin", not "no-referrer": under no-referrer a browser sends `Origin: null` with
// the form posts, which the Worker refuses as an opaque origin; cross-site (the client's redirect) still gets none.
function page(title: string, body: string, head = ""): string {
  return htmlDocument({ title, referrer: "same-origin", head: `${head}<style>${STYLE}</style>\n`, body });
}

/**
 * A client's navigation to us is cross-site, so the SameSite=Strict login cookie is not sent
 * with it. Reloading the same URL from this (same-origin) page is a same-site navigation,
 * which carries the cookie.
 */
export function bouncePage(url: string): string {
  const target = escapeHtml(url);
  return page("Connecting", `<p>Connecting… <a href="${target}">Continue</a></p>`, `<meta http-equiv="refresh" content="0;url=${target}">\n`);
}

export function signInPage(options: { back: string; failed?: boolean }): string {
  return page(
    "Sign in",
    `<h1>Sign in to edgehost</h1>
<p>An app asks to use your edgehost servers. Sign in first; you will then see what it asks for.</p>
${options.failed ? '<p class="warn" role="alert">That token is not valid.</p>' : ""}
<form method="post" action="/connect/sign-in">
<input type="hidden" name="back" value="${escapeHtml(options.back)}">
<label for="token">Your access token</label>
<input id="token" type="password" name="token" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`,
  );
}

export function errorPage(message: string): string {
  return page("Cannot connect", `<h1>This app cannot be connected</h1>\n<p>${escapeHtml(message)}</p>\n<p class="muted">Start again from the app.</p>`);
}

export interface ReachGroups {
  deployment: string[];
  servers: string[];
  signedIn: string[];
  machines: { name: string; online: boolean }[];
  /** MCP_GATEWAY_USER_SERVERS=off: only the deployment's servers are offered. */
  userServersOffered: boolean;
}

export interface ConsentView {
  handle: string;
  person: string;
  clientName: string;
  clientId: string;
  /** A client ID metadata document's host (verified by fetching it); absent: the name is the client's own claim. */
  clientDomain?: string;
  redirectHost: string;
  redirectIsLoopback: boolean;
  host: string;
  reach: ReachGroups;
}

const list = (items: string[], empty: string) =>
  items.length ? `<ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join("")}</ul>` : `<p class="muted">${empty}</p>`;

function reachHtml(reach: ReachGroups): string {
  const groups = [`<h2>This deployment's servers for you</h2>${list(reach.deployment, "none")}`];
  if (reach.userServersOffered) {
    groups.push(
      `<h2>Your own servers</h2>${list(reach.servers, "none")}`,
      `<h2>Services you signed in to</h2>${list(reach.signedIn, "none")}`,
      `<h2>Your paired machines</h2>${list(
        reach.machines.map((m) => `${m.name} (${m.online ? "online" : "offline: reached while online"})`),
        "none",
      )}`,
    );
  } else groups.push(`<p class="muted">This deployment offers only its own servers to apps: not your own servers, sign-ins or machines.</p>`);
  return groups.join("\n");
}

export function consentPage(view: ConsentView): string {
  const name = escapeHtml(view.clientName);
  const who = view.clientDomain
    ? `<p>Published by <strong>${escapeHtml(view.clientDomain)}</strong> (client <code>${escapeHtml(view.clientId)}</code>).</p>`
    : `<p class="muted">This app registered itself: its name is its own claim, not verified by edgehost.</p>`;
  const loopback = view.redirectIsLoopback
    ? `<p class="warn">Its sign-in goes back to a program on this computer (${escapeHtml(view.redirectHost)}). Any program running here could be listening: allow it only if you just started this from an app you trust.</p>`
    : "";
  return page(
    `Connect ${view.clientName}`,
    `<h1>Connect <span id="client-name">${name}</span> to your edgehost servers?</h1>
${who}
<p>Signed in as <strong>${escapeHtml(view.person)}</strong> on ${escapeHtml(view.host)}. Its access goes to <strong id="redirect-host">${escapeHtml(view.redirectHost)}</strong>.</p>
${loopback}
<p>${name} will be able to list and call the tools, prompts and resources of:</p>
${reachHtml(view.reach)}
<p class="muted">Calls that need your approval in the chat need it here too. You can disconnect it any time in Connected apps.</p>
<form method="post" action="/connect/authorize">
<input type="hidden" name="handle" value="${escapeHtml(view.handle)}">
<label class="check"><input type="checkbox" name="sampling" value="on"><span>Allow ${name} to spend my model budget when its servers ask the model (sampling)</span></label>
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}
