// A server's URL-mode elicitation (MCP 2025-11-25 `elicitation/create` with `mode: "url"`, or
// the same request inside a 2026-07-28 `input_required` result: the SDK hands both to one
// handler). Only an http(s) URL reaches the person; anything else is refused here with a typed
// error and never shown. Nothing of the URL but its host is logged: its path and query may
// carry the server's state for this person.
import type { ElicitResult } from "@modelcontextprotocol/client";
import type { Approvals } from "../../approval/approvals";
import { rpcRefusal } from "../../mcp/rpc-refusal";
import { silentLogger, type Logger } from "../../shared/logger";

/** `raw` as a URL the page may open: http or https, no user name or password (it would hide the real host). */
export function openableUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "it is not a URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `only http and https URLs are opened, not ${url.protocol.slice(0, 20)}`;
  if (url.username || url.password) return "a URL with a user name or password is not opened";
  return url;
}

/** `elicitationId`: 2025-11-25 only (2026-07-28 has none; its retry carries the outcome). */
export interface UrlParams {
  message: string;
  url: string;
  elicitationId?: string;
}

export function askUrl(approvals: Approvals, server: string, params: UrlParams, signal: AbortSignal, logger: Logger = silentLogger): Promise<ElicitResult> {
  const url = openableUrl(params.url);
  if (typeof url === "string") {
    logger.warn("url elicitation refused", { server, reason: url });
    throw rpcRefusal("elicitation_url_refused", `URL elicitation refused: ${url}`);
  }
  logger.info("url elicitation", { server, host: url.host });
  return approvals.elicitUrl(server, params.message, url, params.elicitationId, signal);
}
