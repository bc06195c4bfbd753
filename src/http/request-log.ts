// One log line per request, as Workers Logs indexes it: a request id made at the edge
// (Cloudflare's `cf-ray`, else a new UUID) that the session's lines carry too, the
// method and path (never the query: OAuth callbacks carry codes there), the status,
// the time it took, who asked and, when refused, the error's code. Refusals that are
// security events (sign-in, origin, limits, credentials) are logged at `warn`.
import type { MiddlewareHandler } from "hono";
import { runtimeConfig } from "../config/runtime-config";
import type { AppEnv } from "../identity/identify";
import type { ErrorCode } from "../shared/error-codes";
import { operations } from "../ops/operations-object";

// Not `unauthenticated`: no credential at all is every signed-out page asking who it is
// (two lines per load of the sign-in form); a wrong one is `bad_token`.
const SECURITY_EVENTS = new Set<ErrorCode>([
  "bad_token",
  "sign_in_throttled",
  "forbidden_origin",
  "auth_not_configured",
  "rate_limited",
  "budget_exhausted",
  "too_many_sessions",
  "bad_device_credential",
  "pairing_unknown",
  "pairing_used",
  "oauth_state_invalid",
  "server_url_refused",
  "approval_required",
  "denied",
]);

export function requestLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = c.req.header("cf-ray") ?? crypto.randomUUID();
    c.set("requestId", requestId);
    const started = Date.now();
    await next();
    const { logger } = runtimeConfig(c.env);
    const code = c.get("errorCode");
    const status = c.res.status;
    const fields = {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Date.now() - started,
      ...(c.get("identity") ? { user: c.get("identity").name } : {}),
      ...(code ? { code } : {}),
    };
    if (status >= 500 && code !== "auth_not_configured") {
      // Our own fault (500) is an error; an upstream's (a model or MCP server failing, timing out: 502-504) a warning.
      logger[status === 500 ? "error" : "warn"]("request failed", fields);
      // Kept for /admin's last errors, after the answer has gone.
      const event = {
        at: started,
        source: "worker" as const,
        code: code ?? "internal",
        message: `${c.req.method} ${c.req.path} answered ${status}`,
        requestId,
        turnId: null,
        user: c.get("identity")?.name ?? null,
        session: null,
        server: null,
        tool: null,
      };
      c.executionCtx.waitUntil(
        operations(c.env)
          .recordError(event)
          .catch(() => undefined),
      );
    } else if (code && SECURITY_EVENTS.has(code)) logger.warn("request refused", fields);
    else logger.info("request", fields);
  };
}
