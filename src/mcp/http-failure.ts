// What a failing server's HTTP answer may tell the user: its status, in our words. The
// MCP SDK puts the response body (or the reason phrase) into some of its error messages
// ("Error POSTing to endpoint: <body>"); a body may be anything the server (or whatever
// answers at that address) chose to say, so it never reaches a page, a history entry or
// a model. Every other message passes through unchanged.
import { SdkHttpError } from "@modelcontextprotocol/client";
import { errorMessage } from "../shared/logger";

const BODY_CARRIERS: RegExp[] = [
  /^Error POSTing to endpoint(?: \(HTTP (\d{3})\))?:/,
  /^Failed to open SSE stream:/,
  /^Failed to terminate session:/,
  /^(?:Token|JWT grant) exchange failed with status (\d{3}):/,
];

export function publicFailure(error: unknown): string {
  const message = errorMessage(error);
  const status = error instanceof SdkHttpError ? error.status : undefined;
  for (const carrier of BODY_CARRIERS) {
    const match = carrier.exec(message);
    if (!match) continue;
    const code = status ?? (match[1] ? Number(match[1]) : undefined);
    return code ? `the server answered HTTP ${code}` : "the server's answer was not MCP";
  }
  return message;
}

/** The request never reached the server: the connection could not be made or was lost (not a timeout, not an answer). */
export function isUnreachable(error: unknown): boolean {
  return /not connected|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|network/i.test(publicFailure(error));
}
