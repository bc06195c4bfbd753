// The page the authorization server sends the browser back to (/oauth/callback).
// That arrival is cross-site, so it carries no login cookie: this script POSTs the
// code and state from our own origin, where the cookie does go, and the Worker
// checks the state against the caller and exchanges the code. Then it tells the
// page that opened it (BroadcastChannel, and postMessage to our own origin only)
// and closes; without an opener (popups blocked) it goes back to the page.
import { request } from "./core/api.js";
import { CHANNEL, RETURN_KEY } from "./servers/oauth-sign-in.js";
import { byId } from "./core/dom.js";

const status = byId("oauth-status");
const back = byId("oauth-back");

/** API messages are lower-case fragments; shown alone on a page, they read as a sentence. */
const sentence = (text) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? "" : "."}`;

function show(text, ok) {
  status.textContent = sentence(text);
  status.dataset.kind = ok ? "ok" : "error";
  back.hidden = false;
}

function tell(message) {
  if ("BroadcastChannel" in window) {
    const channel = new BroadcastChannel(CHANNEL);
    channel.postMessage(message);
    channel.close();
  }
  if (window.opener && !window.opener.closed) window.opener.postMessage(message, location.origin);
}

async function finish() {
  const params = new URLSearchParams(location.search);
  // The code is single-use and short-lived, but it need not stay in the address bar or history.
  history.replaceState(null, "", "/oauth/callback");
  const error = params.get("error");
  if (error) {
    const text = `The sign-in was not completed: ${params.get("error_description") ?? error}.`;
    tell({ type: "oauth-done", ok: false, message: text });
    return show(text, false);
  }
  const code = params.get("code");
  const state = params.get("state");
  if (!code || !state) return show("This page finishes a sign-in, but the address has no code and state: start the sign-in again from edgehost.", false);
  let answer;
  try {
    answer = await request("/oauth/callback", { method: "POST", body: { code, state, ...(params.get("iss") ? { iss: params.get("iss") } : {}) } });
  } catch {
    return show("Could not reach edgehost to finish the sign-in. Try again once it is back.", false);
  }
  const data = answer.data;
  if (!answer.ok) {
    const text = data?.error?.message ?? `The sign-in failed (${answer.status}).`;
    tell({ type: "oauth-done", ok: false, server: data?.error?.server, message: text });
    return show(text, false);
  }
  tell({ type: "oauth-done", ok: true, server: data.server });
  show(`Signed in to ${data.server}. You can close this window.`, true);
  if (window.opener && !window.opener.closed) {
    window.close();
    return;
  }
  const session = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  back.href = session ? `/#s=${encodeURIComponent(session)}` : "/";
  location.replace(back.href);
}

void finish();
