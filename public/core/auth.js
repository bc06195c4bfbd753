// Who is signed in: GET /api/me, the token login form (POST /auth/login) and
// sign-out (POST /auth/logout, or /auth/logout-all to end the sign-in on every
// device). With AUTH_MODE=none (or a server without /api/me) there is nobody to
// show and no login.
import { NetworkError, request } from "./api.js";
import { byId } from "./dom.js";

const $ = byId;

/**
 * @returns {Promise<{ state: "signed-in", user: { id: string, name: string }, authMode: string }
 *   | { state: "signed-out", authMode: string, message?: string }
 *   | { state: "unknown", reason: "offline" | "unsupported" }>}
 */
export async function whoAmI() {
  return (await ask("/api/me", (data) => data)).who;
}

/**
 * A load's first read (GET /api/bootstrap): who is signed in, as `whoAmI` says it, and when
 * signed in what the page shows first (their chats, OAuth sign-ins and models) in `boot`.
 * index.html preloads it (same URL, same credentials), so the answer is on its way while the
 * script loads.
 * @returns {Promise<{ who: Awaited<ReturnType<typeof whoAmI>>, boot: Bootstrap | null }>}
 */
export async function bootstrap() {
  const { who, data } = await ask("/api/bootstrap", (data) => data?.me);
  return { who, boot: who.state === "signed-in" ? data : null };
}

/**
 * @typedef {{ sessions: import("./state.js").SessionSummary[], oauth: { signedIn: string[] },
 *   models: import("../composer/model-picker.js").ModelList | null, apps?: { connected: number, questions: number },
 *   shared?: import("./state.js").SharedChat[],
 *   presets?: import("../account/presets.js").Preset[] }} Bootstrap
 */

/**
 * Asks `path` who is signed in (`me` picks GET /api/me's answer out of the body).
 * @param {string} path @param {(data: any) => any} me
 * @returns {Promise<{ who: any, data: any }>}
 */
async function ask(path, me) {
  let answer;
  try {
    answer = await request(path);
  } catch (error) {
    if (error instanceof NetworkError) return { who: { state: "unknown", reason: "offline" }, data: null };
    throw error;
  }
  return { who: whoFrom(answer, me(answer.data)), data: answer.data };
}

/** @param {{ ok: boolean, status: number, data: any }} answer @param {any} me */
function whoFrom(answer, me) {
  if (answer.ok && me?.user) return { state: "signed-in", user: me.user, authMode: me.authMode ?? "none" };
  if (answer.status === 401) return { state: "signed-out", authMode: answer.data?.error?.authMode ?? "token", message: answer.data?.error?.message };
  // Fail closed: a deployment with no usable sign-in serves nothing, and says what to set.
  if (answer.status === 503 && answer.data?.error?.code === "auth_not_configured")
    return { state: "signed-out", authMode: "misconfigured", message: answer.data.error.message };
  return { state: "unknown", reason: "unsupported" };
}

let showing = null;

/**
 * Shows the login form alone; resolves once a token was accepted (204). With
 * Cloudflare Access (`authMode` "access") there is no token to enter: the page
 * says how to sign in instead, and never resolves.
 */
export function showLogin(message = "", authMode = "token") {
  $("app").hidden = true;
  $("login").hidden = false;
  $("login-fields").hidden = authMode !== "token";
  $("login-elsewhere").hidden = authMode !== "access";
  if (authMode !== "token") {
    $("login-error").textContent = message;
    return new Promise(() => {});
  }
  const form = $("login-form");
  const input = $("login-token");
  const error = $("login-error");
  const submit = $("login-submit");
  error.textContent = message;
  input.focus();
  if (showing) return showing;
  input.value = "";
  input.removeAttribute("aria-invalid");
  showing = new Promise((resolve) => {
    const onSubmit = async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) {
        error.textContent = "Enter your access token.";
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      submit.disabled = true;
      error.textContent = "";
      try {
        const answer = await request("/auth/login", { method: "POST", body: { token } });
        if (answer.status === 204 || answer.ok) {
          form.removeEventListener("submit", onSubmit);
          input.value = "";
          $("login").hidden = true;
          showing = null;
          resolve();
          return;
        }
        error.textContent =
          answer.status === 401
            ? "That token was not accepted. Check it and try again."
            : (answer.data?.error?.message ?? `Sign-in failed (${answer.status}).`);
        input.setAttribute("aria-invalid", "true");
        input.select();
      } catch (failure) {
        error.textContent = failure instanceof NetworkError ? failure.message : "Sign-in failed.";
      } finally {
        submit.disabled = false;
      }
    };
    form.addEventListener("submit", onSubmit);
  });
  return showing;
}

/**
 * The header's "name · Sign out" (only when there is a sign-in to end), and with
 * token logins "Sign out everywhere": `onSignOut(everywhere)`.
 */
export function showAccount(me, onSignOut) {
  const account = $("account");
  const show = me.state === "signed-in" && me.authMode !== "none";
  account.hidden = !show;
  if (!show) return;
  $("user-name").textContent = me.user.name;
  $("user-name").title = `Signed in as ${me.user.name} (${me.user.id})`;
  $("sign-out").onclick = () => onSignOut(false);
  // Cloudflare Access keeps its own sessions: only token logins are ours to end everywhere.
  $("sign-out-all").hidden = me.authMode !== "token";
  $("sign-out-all").onclick = () => onSignOut(true);
}

/** Ends this login on the server (a copy of the cookie stops working), or with `everywhere` every login of the user. */
export async function signOut({ everywhere = false } = {}) {
  try {
    await request(everywhere ? "/auth/logout-all" : "/auth/logout", { method: "POST", body: {} });
  } catch {
    // Offline: the cookie stays, but the page still forgets everything below.
  }
}
