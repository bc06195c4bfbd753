// The Worker's environment exactly as wrangler gives it: the Durable Object
// bindings and every variable this code reads (all strings, all optional). Only
// src/config/ parses it; the rest of the code receives the parsed RuntimeConfig.
// A type literal, not an interface, so it is readable as Record<string, unknown>.
export type Env = {
  // The stubs are typed where they are made (http/owned-session.ts, users/account.ts),
  // so that configuration does not depend on the objects it configures.
  CHAT_SESSION: DurableObjectNamespace;
  USER_ACCOUNT: DurableObjectNamespace;
  SIGN_IN_THROTTLE: DurableObjectNamespace;
  PAIRING_CODE: DurableObjectNamespace;
  OPERATIONS: DurableObjectNamespace;
  SHARED_CONVERSATION: DurableObjectNamespace;
  GATEWAY_APP: DurableObjectNamespace;
  /** The MCP gateway's OAuth grants and tokens (src/gateway/auth-server.ts); without it `/mcp` answers 503. */
  OAUTH_KV?: KVNamespace;
  ASSETS?: Fetcher;
  /** Files users attach (src/files/): an R2 bucket; without it uploads answer 503 files_unavailable. */
  FILES?: R2Bucket;
  // Model (src/llm/provider-config.ts); MODEL_PROVIDERS names the variables holding its keys
  LLM_PROVIDER?: string;
  TOOL_MODE?: string;
  GEMINI_API_KEY?: string;
  GEMINI_MODEL?: string;
  GEMINI_BASE_URL?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_MODEL?: string;
  MODEL_PROVIDERS?: string;
  ALLOWED_MODELS?: string;
  // Identity (src/identity/auth-config.ts)
  AUTH_MODE?: string;
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
  ACCESS_TOKENS?: string;
  COOKIE_SECRET?: string;
  ALLOWED_ORIGINS?: string;
  // Sessions, limits and the bridge (settings.ts)
  LOG_LEVEL?: string;
  MCP_CONFIG?: string;
  TOOL_APPROVAL?: string;
  MAX_STEPS?: string;
  HISTORY_TOKEN_BUDGET?: string;
  TOOL_RESULT_CHARS?: string;
  RATE_LIMIT_PER_MINUTE?: string;
  RATE_LIMIT_BURST?: string;
  DAILY_TOKEN_BUDGET?: string;
  MAX_SESSIONS_PER_USER?: string;
  SESSION_TTL_DAYS?: string;
  TURN_TOKEN_RESERVATION?: string;
  UPLOAD_MAX_FILE_BYTES?: string;
  UPLOAD_MAX_FILES?: string;
  UPLOAD_QUOTA_BYTES?: string;
  UPLOADS_PER_MINUTE?: string;
  UPLOAD_BURST?: string;
  SHARES_PER_SESSION?: string;
  INVITES_PER_CHAT?: string;
  SHARES_PER_USER?: string;
  SHARES_PER_MINUTE?: string;
  SHARE_BURST?: string;
  TASKS_PER_USER?: string;
  AUDIT_RETENTION_DAYS?: string;
  PAIRINGS_PER_ADDRESS?: string;
  PAIRINGS_PENDING_MAX?: string;
  ALLOW_PRIVATE_SERVER_URLS?: string;
  SIGN_IN_FAILURE_BURST?: string;
  SIGN_IN_FAILURES_PER_HOUR?: string;
  MCP_CONNECT_TIMEOUT_MS?: string;
  LLM_RETRY_INITIAL_MS?: string;
  LLM_IDLE_TIMEOUT_MS?: string;
  MCP_RETRY_INITIAL_MS?: string;
  SYSTEM_PROMPT?: string;
  SAMPLING_MODELS?: string;
  SAMPLING_MAX_TOKENS?: string;
  BRIDGE_URL?: string;
  BRIDGE_TOKEN?: string;
  BRIDGE_ACCESS_CLIENT_ID?: string;
  BRIDGE_ACCESS_CLIENT_SECRET?: string;
  // The MCP gateway (src/gateway/, docs/connect-clients.md)
  MCP_GATEWAY?: string;
  MCP_GATEWAY_USER_SERVERS?: string;
  MCP_GATEWAY_NAMES?: string;
  GATEWAY_HOLD_MS?: string;
  GATEWAY_ACCESS_TOKEN_TTL?: string;
  PUBLIC_ORIGIN?: string;
  // Push notifications (src/config/push.ts, docs/notifications.md): all three keys or none
  VAPID_PUBLIC_KEY?: string;
  VAPID_PRIVATE_KEY?: string;
  VAPID_SUBJECT?: string;
  PUSH_SERVICE_HOSTS?: string;
  PUSH_DEVICES_PER_USER?: string;
  PUSH_LONG_TURN_SECONDS?: string;
  PUSH_PER_HOUR?: string;
  PRESETS_PER_USER?: string;
  SCHEDULES_PER_CHAT?: string;
  SCHEDULES_PER_USER?: string;
  RULES_PER_CHAT?: string;
  SCHEDULE_MAX_FAILURES?: string;
  SCHEDULE_APPROVAL_WAIT_MINUTES?: string;
  SCHEDULE_OWNER_SEEN_DAYS?: string;
  // The operator view (src/http/admin.ts)
  ADMIN_USERS?: string;
};
