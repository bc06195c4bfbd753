// MCP Apps, the session's part: the HTML of a tool's `ui://` resource for the
// page to frame, and the tool calls an app makes back, which go through the same
// approval as a model's (an `approval_request` on the session's sockets). An app
// reads only resources a tool of its server declares, and calls only tools of
// that server. Its calls are not recorded in the history: the app shows their
// results, and a card per call would frame the app again inside the chat.
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { Approvals } from "../approval/approvals";
import { MCP_APP_MIME, resourceCsp, visibleTo, type AppCsp } from "../mcp/app-ui";
import { ToolNotFoundError } from "../mcp/errors";
import { EdgehostError, type PublicError } from "../shared/errors";
import type { SessionMcp } from "./session-mcp";

/** An app's HTML larger than this is refused (the Worker holds it in memory to answer). */
export const MAX_APP_HTML_BYTES = 5 * 1024 * 1024;

export class NotUiResourceError extends EdgehostError {
  readonly code = "not_ui_resource";
  constructor(readonly uri: string) {
    super(`"${uri.slice(0, 200)}" is not a ui:// resource: only MCP App resources can be framed`);
  }
}

export class UndeclaredUiResourceError extends EdgehostError {
  readonly code = "not_found";
  constructor(server: string, uri: string) {
    super(`no tool of server "${server}" declares ${uri.slice(0, 200)}`);
  }
}

export class BadUiResourceError extends EdgehostError {
  readonly code = "bad_ui_resource";
  constructor(reason: string) {
    super(`the server's UI resource cannot be shown: ${reason}`);
  }
}

export interface AppResource {
  html: string;
  csp: AppCsp;
}

export type AppResourceOutcome = { ok: true; resource: AppResource } | { ok: false; error: PublicError };
export type AppToolCallOutcome = { ok: true; result: CallToolResult } | { ok: false; error: PublicError };

function failure(error: unknown): { ok: false; error: PublicError } {
  return { ok: false, error: error instanceof EdgehostError ? error.toPublic() : { code: "internal", message: "the request failed" } };
}

/** The HTML and declared CSP of `uri`, which a tool of `server` must declare as its UI. */
export async function readAppResource(mcp: SessionMcp, server: string, uri: string): Promise<AppResourceOutcome> {
  try {
    if (!uri.startsWith("ui://")) throw new NotUiResourceError(uri);
    await mcp.ensureConnected();
    if (!mcp.host().tools().some((t) => t.server === server && t.uiResourceUri === uri)) throw new UndeclaredUiResourceError(server, uri);
    const { contents } = await mcp.host().readResource(uri, { server });
    const content = contents.find((c) => c.uri === uri) ?? contents[0];
    if (!content) throw new BadUiResourceError("it has no contents");
    const mime = (content.mimeType ?? "").replace(/\s+/g, "").toLowerCase();
    if (mime !== MCP_APP_MIME) throw new BadUiResourceError(`its type is ${content.mimeType ?? "not given"}, not ${MCP_APP_MIME}`);
    const html = "text" in content && typeof content.text === "string" ? content.text : "blob" in content && typeof content.blob === "string" ? new TextDecoder().decode(Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0))) : undefined;
    if (html === undefined) throw new BadUiResourceError("it has neither text nor blob");
    if (html.length > MAX_APP_HTML_BYTES) throw new BadUiResourceError(`it is larger than ${MAX_APP_HTML_BYTES} bytes`);
    return { ok: true, resource: { html, csp: resourceCsp(content._meta) } };
  } catch (error) {
    return failure(error);
  }
}

/**
 * Pending app calls of a session: a reset or a deleted session ends them (their
 * approval questions close, the app gets an error) instead of leaving them open.
 */
export class AppCalls {
  private controller = new AbortController();

  cancelAll(reason: string): void {
    this.controller.abort(reason);
    this.controller = new AbortController();
  }

  /** `tool` of `server` (the app's own server) with `args`, once the approval policy allows it. */
  async call(mcp: SessionMcp, approvals: Approvals, server: string, tool: string, args: Record<string, unknown>): Promise<AppToolCallOutcome> {
    const signal = this.controller.signal;
    try {
      await mcp.ensureConnected();
      // A tool its server keeps for the model alone (`_meta.ui.visibility: ["model"]`) does not exist for an app.
      const found = mcp.host().tools().find((t) => t.server === server && t.name === tool && visibleTo(t.uiVisibility, "app"));
      if (!found) throw new ToolNotFoundError(`${server}.${tool}`);
      const approved = await approvals.approveTool(null, { callId: crypto.randomUUID(), server, tool, arguments: args }, signal, true);
      if (!approved) return { ok: false, error: { code: signal.aborted ? "cancelled" : "denied", message: signal.aborted ? "The call was cancelled." : "The user denied this tool call." } };
      return { ok: true, result: await mcp.host().callTool(found.qualifiedName, args, { signal }) };
    } catch (error) {
      return failure(error);
    }
  }
}
