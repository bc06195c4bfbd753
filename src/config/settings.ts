// The session and limit settings from the environment, as zod parses them: a bad
// value is reported by name (never by value) and its default used instead.
import { z } from "zod";
import { LOOPBACK_HOSTS } from "./auth";

const flag = z.enum(["on", "off", "true", "false", "1", "0"]).transform((v) => v === "on" || v === "true" || v === "1");
const int = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

export const SettingsSchema = z.object({
  /** The least level the Worker and its objects log (JSON lines, src/shared/logger.ts). */
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  TOOL_APPROVAL: flag.default(true),
  MAX_STEPS: int(8, 1, 50),
  HISTORY_TOKEN_BUDGET: int(32_000, 1_000, 1_000_000),
  TOOL_RESULT_CHARS: int(20_000, 500, 500_000),
  RATE_LIMIT_PER_MINUTE: int(20, 1, 10_000),
  RATE_LIMIT_BURST: int(5, 1, 1_000),
  MCP_CONNECT_TIMEOUT_MS: int(15_000, 100, 120_000),
  LLM_RETRY_INITIAL_MS: int(1_000, 0, 60_000),
  /** A model request that sends nothing for this long ends the turn with a clear message. */
  LLM_IDLE_TIMEOUT_MS: int(60_000, 1_000, 600_000),
  MCP_RETRY_INITIAL_MS: int(1_000, 0, 60_000),
  SYSTEM_PROMPT: z.string().max(20_000).optional(),
  /** Model tokens (input + output) one user may spend per UTC day; unset: no limit. */
  DAILY_TOKEN_BUDGET: z.coerce.number().int().min(1).optional(),
  /** Sessions one user may keep; past it POST /sessions answers 429 too_many_sessions. */
  MAX_SESSIONS_PER_USER: int(1_000, 1, 100_000),
  /** A session idle (no new entry) this many days deletes itself; unset: sessions are kept. */
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(3_650).optional(),
  /** Largest file a user may attach (bytes); images and PDFs go to the model as they are, so within its media budget. */
  UPLOAD_MAX_FILE_BYTES: int(5 * 1024 * 1024, 1_024, 5 * 1024 * 1024),
  /** Files one message may carry. */
  UPLOAD_MAX_FILES: int(5, 1, 20),
  /** Bytes of attached files one user may keep (all their sessions); past it an upload answers 413 file_quota_exceeded. */
  UPLOAD_QUOTA_BYTES: int(100 * 1024 * 1024, 1_024, 100 * 1024 * 1024 * 1024),
  /** Uploads one user may start per minute, once the burst is spent; past it an upload answers 429 rate_limited. */
  UPLOADS_PER_MINUTE: int(30, 1, 10_000),
  /** Uploads one user may start at once (a message's files go up together: at least UPLOAD_MAX_FILES). */
  UPLOAD_BURST: int(20, 1, 1_000),
  /** Live shared links one chat may have; past it sharing it answers 409 too_many_shares (src/users/share-list.ts). */
  SHARES_PER_SESSION: int(10, 1, 1_000),
  /** People one chat's owner may invite (docs/people.md); one more answers 409 too_many_invites. */
  INVITES_PER_CHAT: int(10, 1, 50),
  /** Live shared links one user may have across their chats (each is an object holding up to 1.5 MB). */
  SHARES_PER_USER: int(100, 1, 100_000),
  /** Links one user may create per minute, once the burst is spent; past it sharing answers 429 rate_limited. */
  SHARES_PER_MINUTE: int(10, 1, 10_000),
  /** Links one user may create at once. */
  SHARE_BURST: int(10, 1, 1_000),
  /** Days a tool call's audit record is kept in its owner's account (src/users/audit-log.ts); 0 records nothing. */
  AUDIT_RETENTION_DAYS: int(90, 0, 3_650),
  /** MCP tasks one user may have running across their sessions; past it a server's new task is cancelled with task_limit (src/users/task-slots.ts). */
  TASKS_PER_USER: int(5, 1, 1_000),
  /** The tokens a turn holds against DAILY_TOKEN_BUDGET while it runs: its worst case (src/users/reservations.ts). */
  TURN_TOKEN_RESERVATION: int(40_000, 1, 10_000_000),
  /** Runtime servers on private or loopback addresses in a deployed Worker (src/servers/url-policy.ts); off by default. */
  ALLOW_PRIVATE_SERVER_URLS: flag.default(false),
  /** Failed sign-ins one client address may make in a row before it is throttled (src/identity/sign-in-throttle.ts). */
  SIGN_IN_FAILURE_BURST: int(10, 1, 1_000),
  /** How fast that allowance comes back, in failures per hour. */
  SIGN_IN_FAILURES_PER_HOUR: int(30, 1, 100_000),
  /** Pairings one client address may start per 10 minutes (a code lives that long): its pairings in flight (src/http/machines.ts). */
  PAIRINGS_PER_ADDRESS: int(10, 1, 1_000),
  /** Pairings all addresses together may have in flight (started in the last 10 minutes); past either cap a start answers 429 rate_limited. */
  PAIRINGS_PENDING_MAX: int(1_000, 1, 1_000_000),
  // A bridge anywhere but this machine must be reached over TLS: the bearer token crosses the network.
  BRIDGE_URL: z
    .url()
    .refine(
      (u) => new URL(u).protocol === "https:" || (new URL(u).protocol === "http:" && LOOPBACK_HOSTS.has(new URL(u).hostname)),
      "must be https:// unless it is on this machine (localhost / 127.0.0.1)",
    )
    .optional(),
  BRIDGE_TOKEN: z.string().optional(),
  /** Models an MCP server's sampling request may get by its model hints or priorities (docs/mcp-features.md: Sampling), cheapest first. */
  SAMPLING_MODELS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((m) => m.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[A-Za-z0-9][\w.:/@-]{0,127}$/, "a comma list of model names")).max(20))
    .default([]),
  /** A sampling request's maxTokens is lowered to this. */
  SAMPLING_MAX_TOKENS: int(4_096, 1, 65_536),
  /** A Cloudflare Access service token, sent to a bridge behind a tunnel protected by Access. */
  BRIDGE_ACCESS_CLIENT_ID: z.string().optional(),
  BRIDGE_ACCESS_CLIENT_SECRET: z.string().optional(),
  /** `/mcp`: each person's servers as one remote MCP server for their own MCP clients (src/gateway/, docs/connect-clients.md); off: those routes answer 404. */
  MCP_GATEWAY: flag.default(true),
  /** Whether `/mcp` also offers a person's runtime servers and paired machines (off: only the deployment's servers meant for them). */
  MCP_GATEWAY_USER_SERVERS: flag.default(true),
  /** Tool names at `/mcp`: `chat` gives the names the chat's model sees (`server__tool`); `bare` a tool's own name where no other offered tool has it. */
  MCP_GATEWAY_NAMES: z.enum(["chat", "bare"]).default("chat"),
  /** How long a tool call from an app that cannot ask its person waits for an approval given in the page, before it answers approval_pending. */
  GATEWAY_HOLD_MS: int(45_000, 1_000, 110_000),
  /** Lifetime of an access token the gateway's authorization server issues, in seconds (refresh tokens renew it). */
  GATEWAY_ACCESS_TOKEN_TTL: int(3_600, 60, 86_400),
  /** The one origin `/mcp` is served at (its resource URL in OAuth tokens), e.g. https://chat.example.com; unset: the origin each request names. */
  PUBLIC_ORIGIN: z
    .url()
    .refine((u) => new URL(u).origin === u.replace(/\/$/, ""), "an origin only: scheme, host and port, no path")
    .optional(),
  /** Devices (browsers) one person may have push notifications sent to; past it adding one answers 409 too_many_devices (src/users/push-devices.ts). */
  PUSH_DEVICES_PER_USER: int(10, 1, 100),
  /** A turn that ran at least this long pushes "done" to its sender when none of their tabs on the chat is visible. */
  PUSH_LONG_TURN_SECONDS: int(20, 1, 3_600),
  /** Notifications per person in any hour; past it they are dropped and counted (src/users/push-cap.ts). */
  PUSH_PER_HOUR: int(30, 1, 1_000),
  /** Presets one person may keep (src/users/presets.ts); past it making one answers 409 too_many_presets. */
  PRESETS_PER_USER: int(20, 1, 200),
  /** Schedules one chat may hold (src/session/schedules/); past it making one answers 409 too_many_schedules. */
  SCHEDULES_PER_CHAT: int(5, 1, 50),
  /** Schedules one person may hold across all their chats (src/users/schedule-slots.ts); past it 409 too_many_schedules. */
  SCHEDULES_PER_USER: int(20, 1, 1_000),
  /** Argument rules one chat keeps (src/approval/rule-store.ts); past it too_many_rules. Read on every call of the chat. */
  RULES_PER_CHAT: int(50, 1, 500),
  /** Behind Cloudflare Access: a person not seen (page loaded) for this many days loses their schedules at the next due run. */
  SCHEDULE_OWNER_SEEN_DAYS: int(30, 1, 3_650),
  /** How long a question (approval, server's question) of a scheduled run waits before it is declined; other turns' wait 10 min. */
  SCHEDULE_APPROVAL_WAIT_MINUTES: int(60, 1, 1_440),
  /** Failed scheduled runs in a row after which the schedule pauses (a notice in the chat says so). */
  SCHEDULE_MAX_FAILURES: int(3, 1, 100),
  /** The push services the Worker POSTs to (src/push/endpoint-policy.ts), replacing the default list; ".example.com" covers hosts under it. */
  PUSH_SERVICE_HOSTS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string().regex(/^\.?[a-z0-9.-]+$|^\[[0-9a-f:]+\]$/, "a comma list of host names"))
        .min(1)
        .max(50),
    )
    .optional(),
  /** The users who get /admin, as the deployment names them (Access email, token name, or "local"); unset: nobody. */
  ADMIN_USERS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((name) => name.trim().toLowerCase())
        .filter(Boolean),
    )
    .default([]),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** Parses the env once; a bad value is reported with the variable name and the default is used instead. */
export function readSettings(env: Record<string, unknown>): { settings: Settings; problems: string[] } {
  const problems: string[] = [];
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(SettingsSchema.shape)) {
    const value = env[key];
    if (value === undefined || value === "") continue;
    const single = SettingsSchema.shape[key as keyof typeof SettingsSchema.shape].safeParse(value);
    if (single.success) input[key] = value;
    // Never echo the value: it may be a secret.
    else problems.push(`${key} is invalid (${single.error.issues[0]?.message ?? "bad value"}); using the default`);
  }
  return { settings: SettingsSchema.parse(input), problems };
}
