// A server's URL-mode elicitation (MCP 2025-11-25 `elicitation/create` with `mode: "url"`, or
// the same request inside a 2026-07-28 `input_required` result: the SDK hands both to one
// handler; or the URLs a -32042 refusal of a tool call lists). Only an http(s) URL reaches the person; anything else is refused here with a typed
// error and never shown. Nothing of the URL but its host is logged: its path and query may
// carry the server's state for this person.
import type { ElicitResult } from "@modelcontextprotocol/client";
import type { Approvals } from "../../approval/approvals";
import { rpcRefusal } from "../../mcp/rpc-refusal";
import type { RequiredUrlElicitation } from "../../mcp/url-elicitation-required";
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

/**
 * A tool call the server refused with -32042 until the person finished at a URL: each listed
 * URL is asked as above; true (the call is sent once more) once every one was agreed to and
 * its server said it is complete, else why not, for the model.
 */
export async function urlRequired(
  approvals: Approvals,
  request: { server: string; elicitations: RequiredUrlElicitation[]; signal?: AbortSignal },
  logger: Logger = silentLogger,
): Promise<true | string> {
  const { server, signal } = request;
  for (const elicitation of request.elicitations) {
    const url = openableUrl(elicitation.url);
    if (typeof url === "string") {
      logger.warn("url elicitation refused", { server, reason: url });
      return `the server asked the person to open a URL that was refused (${url})`;
    }
    logger.info("url elicitation required", { server, host: url.host });
    const outcome = await approvals.urlRequired(server, elicitation.message, url, elicitation.elicitationId, signal);
    if (outcome === "not finished") return `the person did not finish at ${url.host}`;
    if (outcome !== true) return `the person ${outcome === "decline" ? "declined" : "did not agree"} to open ${url.host}`;
  }
  return true;
}
