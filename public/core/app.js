// The chat page's entry: signs the user in (the login form when needed) and wires the
// parts together: the sidebar menu and the tool console are page-chrome.js, what the page
// shows lives in state.js and is drawn by views.js, the socket is connection.js, the
// frames frames.js, the composer composer.js, the session list sessions.js. Bundled from
// here by scripts/build-page.mjs; no external requests.
import { request, whenSignedOut } from "./api.js";
import { bootstrap, showAccount, showLogin, signOut, whoAmI } from "./auth.js";
import { clearChat, setAppHooks, setBanner } from "../chat/chat-view.js";
import { setupComposer } from "../composer/composer.js";
import { createConnection } from "./connection.js";
import { setupConsole } from "../chat/console.js";
import { closeAll } from "../dialogs/dialogs.js";
import { stopAppQuestions, watchAppQuestions } from "../dialogs/app-questions.js";
import { byId as $ } from "./dom.js";
import { frameHandler } from "./frames.js";
import { setupAlwaysAllowed } from "../dialogs/always-allowed.js";
import { setupSchedules } from "../chat/schedules.js";
import { setupBranches } from "../chat/branches.js";
import { showAppFor, teardownApps } from "../chat/mcp-apps.js";
import { setupConnectedApps } from "../servers/connected-apps.js";
import { setupMyMachines } from "../servers/my-machines.js";
import { setupModelPicker, showModels } from "../composer/model-picker.js";
import { setupMyProviders } from "../servers/my-providers.js";
import { setupActivity } from "../account/activity.js";
import { knowPresets, setupPresets } from "../account/presets.js";
import { setupMyServers } from "../servers/my-servers.js";
import { noteSignedIn, setupOAuth } from "../servers/oauth-sign-in.js";
import { setupSessions } from "../sessions/sessions.js";
import { setupSessionSearch } from "../sessions/session-search.js";
import { setupShareDialog } from "../dialogs/share-dialog.js";
import { setupImport } from "../composer/import-file.js";
import { dropQueued, state, update } from "./state.js";
import { setupViews } from "./views.js";
import { setupPageChrome } from "./page-chrome.js";
import { warmUp } from "../chat/render-warm-up.js";
import { loadMarkdownWhenIdle } from "../chat/markdown-load.js";
import { setupPushSettings } from "../notify/push-settings.js";
import { setupPeople } from "../people/people-setup.js";
// Side effects only: the theme, the tab's title and notifications, the welcome of an empty chat.
import "./theme.js";
import "./attention.js";
import "../chat/welcome.js";

setAppHooks({ finished: (card, call) => void showAppFor(card, state.sessionId, call), clearing: teardownApps });

const showAlert = (/** @type {string} */ text) => update({ alert: text });

const connection = createConnection({
  // The Markdown renderer's chunk (markdown-load.js): evaluated in an idle moment while the socket opens.
  made: loadMarkdownWhenIdle,
  onFrame: (message) => handleFrame(message),
  onClosed: dropOpenQuestions,
  refusedTwice: () => void checkAccess(),
  removed: (id) => void people.removedFrom(id),
  opened: warmUp,
});
// The console's panel is made below; it is read only when the console first opens.
const { setMenu, setConsole } = setupPageChrome({ loadConsole: () => consolePanel.load() });
const composer = setupComposer({ send: connection.send, isOpen: connection.isOpen, waiting: connection.waiting, reconnect: connection.connect });
const sessions = setupSessions({
  connect: connection.connect,
  detach: connection.detach,
  closeMenu: () => setMenu(false),
  focusInput: composer.focus,
  showAlert,
});
setupSessionSearch({ open: sessions.open });
const people = setupPeople({ open: sessions.open, lost: sessions.lost, showAlert });
const shared = people.shared;
const shareDialog = setupShareDialog();
setupImport({
  imported: async (ids) => {
    await sessions.load();
    if (ids[0]) sessions.open(ids[0]);
  },
  showAlert,
});
setupBranches({ send: connection.send });
setupAlwaysAllowed(connection.send);
setupSchedules();
const handleFrame = frameHandler({
  send: connection.send,
  flushOutbox: composer.flushOutbox,
  rejected: composer.rejected,
  sessionsChanged: sessions.refreshSoon,
});
const modelPicker = setupModelPicker({ send: connection.send });
setupMyProviders({ changed: () => void modelPicker.loadModels() });
setupPresets({ send: connection.send });
setupActivity();
const consolePanel = setupConsole();
const myServers = setupMyServers({ sessionId: () => state.sessionId });
setupMyMachines({ sessionId: () => state.sessionId });
setupConnectedApps();
setupPushSettings({ open: (id) => sessions.open(id) });
setupOAuth({ sessionId: () => state.sessionId });
setupViews({
  onSwitch: sessions.open,
  onDelete: (id, title) => void sessions.remove(id, title),
  onRename: (id, title) => void sessions.rename(id, title),
  onPin: (id, pinned) => void sessions.pin(id, pinned),
  onShare: (id, title) => void shareDialog.open(id, title),
  onPeople: (id) => void people.openDialog(id),
  onToggleServer: (name, enabled) => {
    const chosen = state.servers.filter((s) => (s.name === name ? enabled : s.enabled)).map((s) => s.name);
    connection.send({ type: "set_servers", enabled: chosen });
  },
  myServers,
});
$("new-session").addEventListener("click", () => void sessions.create());
$("delete-all-sessions").addEventListener("click", () => void sessions.removeAll(false));
$("delete-my-data").addEventListener("click", () => void sessions.removeAll(true));

/** Approval and elicitation dialogs of the chat end with the socket; the server asks again on reconnect. */
function dropOpenQuestions() {
  update({ approvals: [] });
  for (const dialog of /** @type {NodeListOf<HTMLDialogElement>} */ (document.querySelectorAll("dialog[open]"))) {
    if (dialog.id === "confirm-dialog" || dialog.id === "my-servers-dialog" || dialog.dataset.callId === "console") continue;
    dialog.close("handled");
  }
}

let checking = false;
/** The socket was refused twice: signed out, or the open session is not (or no longer) the user's. */
async function checkAccess() {
  if (checking || !state.active) return;
  checking = true;
  try {
    const who = await whoAmI();
    if (!state.active) return;
    if (who.state === "signed-out") return signedOut("Your sign-in has ended. Sign in again.");
    const id = state.sessionId;
    if (who.state !== "signed-in" || !id) return;
    const answer = await request(`/sessions/${encodeURIComponent(id)}/history`);
    if (answer.status === 404 && id === state.sessionId) {
      showAlert("That chat is not available: it was deleted, or it is not yours.");
      // Someone else's chat (removed while this page was away, or deleted): it leaves "Shared with me" too.
      if (shared.isShared(id)) shared.forget(id);
      await sessions.lost(id);
    }
  } catch {
    // Offline: keep retrying with backoff.
  } finally {
    checking = false;
  }
}

// ---- signing in and out ----

/** Forgets everything of the signed-in user (sign-out, or the sign-in ended). */
function teardown({ forgetSession = false } = {}) {
  update({ active: false });
  connection.detach();
  closeAll();
  stopAppQuestions();
  clearChat();
  setBanner("");
  setConsole(false, { focus: false });
  setMenu(false);
  dropQueued();
  update({
    alert: "",
    inFlight: null,
    sessions: [],
    servers: [],
    alwaysAllowed: [],
    live: false,
    usage: {},
    usageOutside: { inputTokens: 0, outputTokens: 0 },
    turnId: null,
    busyNote: false,
    approvals: [],
    you: null,
    people: null,
    shared: [],
  });
  composer.clear();
  if (forgetSession) {
    update({ sessionId: null });
    history.replaceState(null, "", location.pathname + location.search);
  }
}

function signedOut(/** @type {string} */ message) {
  if (!state.active) return;
  const mode = state.me?.authMode === "access" ? "access" : "token";
  teardown();
  void showLogin(message, mode).then(start);
}

async function onSignOut(everywhere = false) {
  const mode = state.me?.authMode;
  teardown({ forgetSession: true });
  await signOut({ everywhere });
  if (mode === "access") {
    // Cloudflare Access ends its own session on this path of the same origin.
    location.assign("/cdn-cgi/access/logout");
    return;
  }
  void showLogin().then(start);
}

whenSignedOut(() => signedOut("Your sign-in has ended. Sign in again."));

let startRetries = 0;

async function start() {
  // One read for the load: who is signed in and, when they are, their chats, OAuth sign-ins and models.
  const { who, boot } = await bootstrap();
  if (who.state === "unknown" && who.reason === "offline") {
    // The Worker cannot be reached at all: say so and try again, with backoff.
    $("login").hidden = true;
    $("app").hidden = false;
    const delay = Math.min(5_000, 500 * 2 ** startRetries++);
    connection.setConn(`cannot reach edgehost: retrying in ${Math.ceil(delay / 1000)} s`, "closed");
    setTimeout(start, delay);
    return;
  }
  startRetries = 0;
  if (who.state === "signed-out") {
    await showLogin(who.authMode === "token" ? "" : (who.message ?? "Sign-in is not available."), who.authMode);
    return start();
  }
  update({ me: who, active: true });
  $("login").hidden = true;
  $("app").hidden = false;
  showAccount(who, (/** @type {boolean} */ everywhere) => void onSignOut(everywhere));
  // Past a moment (the user's own providers slow to list), the models come on their own.
  if (boot?.models) showModels(boot.models);
  else void modelPicker.loadModels();
  noteSignedIn(boot?.oauth?.signedIn ?? []);
  // The presets a new chat's welcome offers (the dialog and `/preset` read them again).
  knowPresets(boot?.presets ?? []);
  // Held calls of the person's connected apps wait for them here (only polled when they have apps).
  watchAppQuestions(boot?.apps);
  const listed = Array.isArray(boot?.sessions);
  if (listed) update({ sessions: boot.sessions });
  // The chats others share with this person: in the load's one read (an older Worker without them: read on their own,
  // awaited only when the address names a chat not their own).
  const sharedRead = Array.isArray(boot?.shared) ? Promise.resolve(update({ shared: boot.shared })) : shared.load();
  let wanted = new URLSearchParams(location.hash.slice(1)).get("s");
  // A new chat this tab left unused as it reloaded (sessions.js): the same one again, or, dropped meanwhile, not an error.
  const again = sessions.reopenLeftUnused(wanted);
  if (again === "reopened") return;
  if (again === "gone") wanted = null;
  if (wanted && listed && !state.sessions.some((s) => s.id === wanted)) await sharedRead;
  if (wanted && listed && !state.sessions.some((s) => s.id === wanted) && !shared.isShared(wanted)) {
    // Not in the user's list: open it only if the server says it is theirs.
    let answer = null;
    try {
      answer = await request(`/sessions/${encodeURIComponent(wanted)}/history`);
    } catch {
      // Offline: try it; the socket's retries will tell.
    }
    if (answer && !answer.ok) {
      showAlert("That chat is not available: it was deleted, or it is not yours.");
      wanted = null;
    }
  }
  if (wanted) sessions.open(wanted);
  else await sessions.openFirst();
}

void start();
