// Every error code edgehost puts on a wire, in one closed table, as the MCP SDK keeps one
// error-code enum: its HTTP status, whether it can reach the page's WebSocket, and its
// JSON-RPC code when edgehost answers a server's request (sampling, elicitation, roots)
// with it. A code not in this table does not compile (`ErrorCode`). docs/troubleshooting.md
// says what each means to a user.
//
// The three forms of one error:
//   HTTP       status `status`, body {"error": {"code", "message", "issues"?, "retryAfterMs"?}}
//   WebSocket  {"type": "error", "code", "message", "turnId"?} (codes with `ws: true`)
//   JSON-RPC   {"code": jsonRpc, "message", "data": {"code"}}
import { GATEWAY_ERROR, RPC } from "./rpc";

/** JSON-RPC codes beyond the bridge's (rpc.ts): the spec's, and the SDK's for a timeout. */
const INVALID_PARAMS = -32602;
const INTERNAL = -32603;
const REQUEST_TIMEOUT = -32001;
/** MCP's code for an unknown resource (spec: server/resources, "Resource not found"). */
const RESOURCE_NOT_FOUND = -32002;

export interface ErrorCodeSpec {
  status: number;
  /** Can be sent on the page's WebSocket as an `error` frame (otherwise HTTP only). */
  ws: boolean;
  jsonRpc: number;
}

const http = (status: number, jsonRpc: number = status >= 500 ? INTERNAL : RPC.invalidRequest) => ({ status, ws: false as const, jsonRpc });
const both = (status: number, jsonRpc: number = status >= 500 ? INTERNAL : RPC.invalidRequest) => ({ status, ws: true as const, jsonRpc });

export const ERROR_CODES = {
  // ---- a request or frame that is malformed ----
  bad_request: http(400, INVALID_PARAMS),
  bad_json: both(400, RPC.parseError),
  bad_frame: both(400, RPC.parseError),
  bad_message: both(400, INVALID_PARAMS),
  unknown_type: both(400, RPC.methodNotFound),
  frame_too_large: both(413),
  payload_too_large: http(413),
  unsupported_media_type: http(415),
  upgrade_required: http(426),
  method_not_allowed: http(405, RPC.methodNotFound),
  bad_session_id: http(400, INVALID_PARAMS),
  bad_tool_name: http(400, INVALID_PARAMS),
  /** Refused by one of Hono's own middlewares, with that middleware's status (the only code whose status varies). */
  http_error: http(400),
  not_found: both(404, RPC.methodNotFound),

  // ---- identity and the deployment ----
  auth_not_configured: http(503),
  unauthenticated: http(401),
  bad_token: http(401),
  no_login: http(400),
  forbidden_origin: http(403),
  sign_in_throttled: http(429),
  too_many_sessions: both(429),
  config: both(500),
  startup: both(500),
  dependency_cycle: both(500),
  internal: both(500),

  // ---- spend ----
  rate_limited: both(429),
  budget_exhausted: both(429),
  /** Delete my data is running (src/users/erase-state.ts): every write is refused until it finishes. */
  account_erasing: both(409),

  // ---- turns, approvals, the model ----
  turn_in_progress: both(409),
  unknown_turn: both(404),
  unknown_approval: both(404),
  unknown_elicitation: both(404),
  not_always_allowed: both(404),
  /** An argument rule that cannot be made (docs/rules.md): the message says why; the approval stays open. */
  rule_invalid: both(400),
  too_many_rules: both(409),
  rule_unknown: both(404),
  approval_required: both(403),
  denied: both(403),
  duplicate_call: both(409),
  no_model: both(503, RPC.invalidRequest),
  model_not_available: both(404, INVALID_PARAMS),
  llm: both(502),
  llm_idle: both(504),

  // ---- MCP servers and their tools ----
  tool_not_found: both(404, RPC.methodNotFound),
  tool_arguments: both(400, INVALID_PARAMS),
  server_unavailable: both(503, RPC.serverError),
  circuit_open: both(503, RPC.serverError),
  tool_timeout: both(504, REQUEST_TIMEOUT),
  protocol: both(502),
  cancelled: both(499, RPC.requestCancelled),
  unsupported: both(400, RPC.methodNotFound),
  /** A URL-mode elicitation whose URL is not plain http(s) (or carries a user name): never shown, never opened. */
  elicitation_url_refused: http(400, INVALID_PARAMS),
  unknown_server: both(404, INVALID_PARAMS),
  server_disabled: both(409),
  resource_not_found: both(404, RESOURCE_NOT_FOUND),
  prompt_not_found: both(404, INVALID_PARAMS),
  argument_missing: both(400, INVALID_PARAMS),
  argument_unknown: both(400, INVALID_PARAMS),
  prompt_failed: both(502),
  completions_unsupported: both(400, RPC.methodNotFound),
  too_many_attachments: both(400, INVALID_PARAMS),
  not_ui_resource: both(400, INVALID_PARAMS),
  bad_ui_resource: both(502),
  /** Tasks (MCP Tasks extension): this session holds its most running tasks already (src/session/tasks/). */
  task_limit: both(429),
  /** A task ran past the session's deadline for tasks: cancelled at its server. */
  task_deadline: both(504, REQUEST_TIMEOUT),
  /** A Cancel for a task this session does not hold (it ended, or never was). */
  unknown_task: both(404, INVALID_PARAMS),

  // ---- the user's own servers and OAuth sign-in ----
  duplicate_name: http(409),
  server_url_refused: http(400, INVALID_PARAMS),
  /** A masked key or header value sent with a changed address: a saved secret does not follow it. */
  secret_required: http(400, INVALID_PARAMS),
  server_unreachable: http(400),
  auth_required: both(401),
  oauth_unsupported: both(400),
  oauth_failed: http(502),
  oauth_state_invalid: http(400),
  oauth_retry_limit: http(409),

  // ---- files uploaded from the user's computer (src/files/) ----
  file_type_unsupported: http(415),
  file_too_large: http(413),
  file_content_mismatch: http(415),
  file_quota_exceeded: http(413),
  files_unavailable: http(503),
  file_not_found: both(404, INVALID_PARAMS),
  too_many_files: both(400, INVALID_PARAMS),

  // ---- the person's presets (src/users/presets.ts, docs/presets.md) ----
  /** A preset id the person does not have (deleted, another person's, or never was). */
  preset_unknown: both(404, INVALID_PARAMS),
  /** PRESETS_PER_USER presets already: deleting one makes room. */
  too_many_presets: http(409),

  // ---- shared links (src/share/) ----
  /** SHARES_PER_SESSION or SHARES_PER_USER live links already: revoking one makes room (no time helps). */
  too_many_shares: http(409),

  // ---- push notifications (src/http/push.ts, docs/notifications.md) ----
  /** No VAPID keys (or keys that are not right): this deployment sends no push; GET /api/push says why. */
  push_not_configured: http(503),
  /** A subscription whose endpoint is not https on a known push service, or whose keys are malformed. */
  push_endpoint_refused: http(400, INVALID_PARAMS),
  /** PUSH_DEVICES_PER_USER devices already: removing one makes room. */
  too_many_devices: http(409),
  push_device_unknown: http(404),
  /** A notification's action token that is unknown, used, expired, or whose question is no longer waiting. */
  push_token_invalid: http(410),
  /** An action token presented by someone signed in as another person. */
  push_token_foreign: http(403),
  /** The approval was answered elsewhere (the page, another device) first: the first answer stands. */
  push_already_answered: http(409),

  // ---- scheduled runs (src/session/schedules/, docs/schedules.md) ----
  /** A schedule whose time, zone, text or grants do not parse (`issues` name the fields). */
  schedule_invalid: http(400, INVALID_PARAMS),
  /** A schedule that would run less than 60 minutes apart. */
  schedule_too_frequent: http(400, INVALID_PARAMS),
  /** A pre-granted tool that the chat does not offer now. */
  schedule_tool_unknown: http(400, INVALID_PARAMS),
  /** SCHEDULES_PER_CHAT in this chat or SCHEDULES_PER_USER in all: removing one makes room. */
  too_many_schedules: http(409),
  schedule_unknown: http(404),

  // ---- paired machines ----
  pairing_unknown: http(404),
  pairing_used: http(409),
  pairing_failed: http(503),
  bad_device_credential: http(401),
  too_many_machines: http(409),
  machine_unknown: http(404),
  machine_offline: http(503),
  machine_busy: http(503),
  machine_failed: http(502),

  // ---- the MCP gateway (/mcp, src/gateway/) and its connected apps ----
  /** A token of an app that was disconnected, or whose grant a newer consent replaced. */
  app_disconnected: http(401, RPC.serverError),
  /** /api/apps/:id names no app of the caller's. */
  app_not_found: http(404),
  /** A consent page request that is malformed, expired or not this person's (shown as a page, never redirected). */
  consent_failed: http(400),
  approval_pending: http(403, GATEWAY_ERROR.approval_pending),
  /** A held call's question (POST /api/apps/:id/answers) was answered already: the first answer stands. */
  question_answered: http(409),
  /** A held call's question is past its 10 minutes: the app must call again to be asked again. */
  question_expired: http(410),
  sampling_not_allowed: http(403, GATEWAY_ERROR.sampling_not_allowed),
  sign_in_required: http(401, GATEWAY_ERROR.sign_in_required),

  // ---- people in a shared chat (src/session/people/, docs/people.md) ----
  /** The person's role in this chat does not allow what they did (a viewer sending, a participant approving). */
  role_forbidden: both(403),
  /** Nobody signs in to this deployment by the name invited. */
  unknown_person: http(404),
  /** INVITES_PER_CHAT people invited already: removing one makes room. */
  too_many_invites: http(409),
  /** AUTH_MODE=none: one person only, nobody to invite. */
  invites_unavailable: http(409),
  /** No one with that key is invited to this chat. */
  member_unknown: http(404),
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export const statusOf = (code: ErrorCode): number => ERROR_CODES[code].status;

/** The codes an `error` frame on the page's WebSocket may carry. */
export type WsErrorCode = { [K in ErrorCode]: (typeof ERROR_CODES)[K]["ws"] extends true ? K : never }[ErrorCode];

export const WS_ERROR_CODE_NAMES = ERROR_CODE_NAMES.filter((code): code is WsErrorCode => ERROR_CODES[code].ws) as [WsErrorCode, ...WsErrorCode[]];

export const isWsErrorCode = (code: ErrorCode): code is WsErrorCode => ERROR_CODES[code].ws;

/** An error's JSON-RPC form, for answering a server's request: the table's number, our code in `data`. */
export function jsonRpcError(code: ErrorCode, message: string): { code: number; message: string; data: { code: ErrorCode } } {
  return { code: ERROR_CODES[code].jsonRpc, message, data: { code } };
}
