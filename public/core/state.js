// The page's state, owned here and nowhere else: who is signed in, the user's sessions,
// the open session and its socket, the running turn, the session's servers, the
// messages waiting to be sent and the tokens used. Other modules read it through
// `state` and change it only through the functions below; views subscribe and render
// from it (views.js), so no module keeps its own copy of what the page shows.

/** @typedef {import("./types").SessionServer} SessionServer */
/** @typedef {import("./types").Usage} Usage */
/** @typedef {{ server: string, uri: string, name?: string }} Attachment */
/** @typedef {{ id: string, title: string | null, lastActivity?: number }} SessionSummary */
/** A message typed while it could not be sent; `sent`: its socket died before the echo. */
/** @typedef {{ text: string, sessionId: string, taken?: Attachment[], files?: import("./types").FileRef[], sent?: boolean }} Queued */
/** The message (or `/` prompt) sent last and not yet echoed back as a `user` entry. */
/** @typedef {{ text: string, queued: boolean, sessionId: string, taken: Attachment[], files?: import("./types").FileRef[], prompt?: boolean }} InFlight */

/**
 * @typedef {object} PageState
 * @property {boolean} active signed in and showing the chat (false while the login form is up)
 * @property {{ state: string, authMode?: string } | null} me what GET /api/me said (auth.js whoAmI)
 * @property {SessionSummary[]} sessions the user's sessions, newest first, as GET /api/sessions lists them
 * @property {string | null} sessionId the open session
 * @property {{ text: string, state: "connecting" | "open" | "closed" }} conn the socket, as the header shows it
 * @property {string | null} turnId the running turn
 * @property {boolean} busyNote Enter was pressed during a running turn
 * @property {SessionServer[]} servers the session's servers, as the last `servers` frame listed them
 * @property {boolean} live the socket is up, so `servers` is current
 * @property {Queued[]} outbox messages typed while disconnected, sent in order on reconnect
 * @property {InFlight | null} inFlight
 * @property {Record<string, Usage>} usage model tokens of this session's turns, by turn id
 * @property {Usage} usageOutside model tokens of this session's turns not in `usage` (older than the history shown)
 * @property {import("./types").Frame<"approval_request">[]} approvals asked and not yet shown (one dialog at a time)
 * @property {string} alert the page-wide alert ("" when none)
 * @property {import("./types").ModelChoice | null} model the open session's model, as its last `model` frame said
 * @property {import("./types").ModelOption[]} models the models the user may choose (GET /api/models)
 * @property {string[]} alwaysAllowed the open session's "Always allow" tools (`{server}.{tool}`), as its last `always_allowed` frame said
 * @property {import("./types").RuleView[]} argumentRules the open session's argument rules (docs/rules.md), from the same frame
 * @property {{ key: string, name: string, role: Role } | null} you who this page is in the open chat (`connection.you` / `you`); null: its owner, alone
 * @property {import("./types").Frame<"people"> | null} people who is in the open chat, as its last `people` frame said (docs/people.md)
 * @property {SharedChat[]} shared the chats others invited this person to (GET /api/shared-with-me)
 */
/** @typedef {"viewer" | "participant" | "approver" | "owner"} Role */
/** @typedef {{ sessionId: string, ownerName: string, role: Role, addedAt: number }} SharedChat */

/** @type {PageState} */
const current = {
  active: false,
  me: null,
  sessions: [],
  sessionId: null,
  conn: { text: "", state: "connecting" },
  turnId: null,
  busyNote: false,
  servers: [],
  live: false,
  outbox: [],
  inFlight: null,
  usage: {},
  usageOutside: { inputTokens: 0, outputTokens: 0 },
  approvals: [],
  alert: "",
  model: null,
  models: [],
  alwaysAllowed: [],
  argumentRules: [],
  you: null,
  people: null,
  shared: [],
};

/** Read-only for everyone but this module. */
export const state = /** @type {Readonly<PageState>} */ (current);

/** @type {Set<(changed: Set<keyof PageState>) => void>} */
const listeners = new Set();

/**
 * Changes the state and tells every view which parts changed.
 * @param {Partial<PageState>} patch
 */
export function update(patch) {
  Object.assign(current, patch);
  const changed = /** @type {Set<keyof PageState>} */ (new Set(Object.keys(patch)));
  for (const listener of listeners) listener(changed);
}

/**
 * Calls `render` now and after every change of one of `keys`.
 * @param {(keyof PageState)[]} keys
 * @param {() => void} render
 */
export function subscribe(keys, render) {
  listeners.add((changed) => {
    if (keys.some((key) => changed.has(key))) render();
  });
  render();
}

/** The open session's queued messages. */
export const queuedHere = () => current.outbox.filter((m) => m.sessionId === current.sessionId);

/** @param {Queued} message */
export const enqueue = (message) => update({ outbox: [...current.outbox, message] });

/** Puts a message back at the head of the queue (it was refused, or its socket died). @param {Queued} message */
export const requeue = (message) => update({ outbox: [message, ...current.outbox] });

/** Takes the open session's next queued message. */
export function dequeue() {
  const index = current.outbox.findIndex((m) => m.sessionId === current.sessionId);
  if (index < 0) return undefined;
  const next = current.outbox[index];
  update({ outbox: current.outbox.filter((_, i) => i !== index) });
  return next;
}

/** Drops the queued messages of a session (deleted), or every one (signed out). @param {string} [sessionId] */
export const dropQueued = (sessionId) => update({ outbox: sessionId === undefined ? [] : current.outbox.filter((m) => m.sessionId !== sessionId) });
