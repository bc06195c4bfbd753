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
import type { ServerMessage } from "../protocol/messages";
import type { SessionMcp } from "./mcp/session-mcp";
import { decodeText } from "../orchestrator/blob-content";
import { failedEnd } from "../orchestrator/turn";
import type { ApprovalDecision } from "../orchestrator/transcript";
import type { AuditedCall } from "./audit-sink";

/** An app's HTML larger than this is refused (the Worker holds it in memory to answer). */
const MAX_APP_HTML_BYTES = 5 * 1024 * 1024;

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

/** A blob that is not base64 is a broken server, not a bad resource: an internal error, as before. */
function decodeBlob(blob: string): string {
  const text = decodeText(blob);
  if (text === undefined) throw new Error("the app's blob is not valid base64");
  return text;
}

/** The HTML and declared CSP of `uri`, which a tool of `server` must declare as its UI. */
export async function readAppResource(mcp: SessionMcp, server: string, uri: string): Promise<AppResourceOutcome> {
  try {
    if (!uri.startsWith("ui://")) throw new NotUiResourceError(uri);
    await mcp.ensureConnected();
    if (
      !mcp
        .host()
        .tools()
        .some((t) => t.server === server && t.uiResourceUri === uri)
    )
      throw new UndeclaredUiResourceError(server, uri);
    const { contents } = await mcp.host().readResource(uri, { server });
    const content = contents.find((c) => c.uri === uri) ?? contents[0];
    if (!content) throw new BadUiResourceError("it has no contents");
    const mime = (content.mimeType ?? "").replace(/\s+/g, "").toLowerCase();
    if (mime !== MCP_APP_MIME) throw new BadUiResourceError(`its type is ${content.mimeType ?? "not given"}, not ${MCP_APP_MIME}`);
    const html =
      "text" in content && typeof content.text === "string"
        ? content.text
        : "blob" in content && typeof content.blob === "string"
          ? decodeBlob(content.blob)
          : undefined;
    if (html === undefined) throw new BadUiResourceError("it has neither text nor blob");
    if (html.length > MAX_APP_HTML_BYTES) throw new BadUiResourceError(`it is larger than ${MAX_APP_HTML_BYTES} bytes`);
    return { ok: true, resource: { html, csp: resourceCsp(content._meta) } };
  } catch (error) {
    return failure(error);
  }
}

/** The approval question's id of an app's call: the page's id, kept apart from the model's call ids. */
const appCallId = (id: string) => `app-${id}`;

/**
 * Pending app calls of a session, by the page's id for each. The page cancels one
 * whose app went away (or that the app cancelled); a reset or a deleted session
 * cancels all. A cancelled call waiting for approval has its question closed on
 * every page (`approval_resolved`), and the app (if still there) gets an error.
 */
export class AppCalls {
  private readonly pending = new Map<string, { controller: AbortController; asking: boolean }>();

  constructor(private readonly broadcast: (message: ServerMessage) => void) {}

  cancelAll(reason: string): void {
    for (const id of [...this.pending.keys()]) this.cancel(id, reason);
  }

  /** False when no call of that id is pending (it finished, or never was). */
  cancel(id: string, reason = "cancelled by the page"): boolean {
    const call = this.pending.get(id);
    if (!call) return false;
    this.pending.delete(id);
    call.controller.abort(reason);
    if (call.asking) this.broadcast({ type: "approval_resolved", callId: appCallId(id), approved: false });
    return true;
  }

  /** `tool` of `server` (the app's own server) with `args`, once the approval policy allows it. */
  async call(
    mcp: SessionMcp,
    approvals: Approvals,
    request: { id?: string; server: string; tool: string; arguments: Record<string, unknown> },
    audited?: (call: AuditedCall) => void,
  ): Promise<AppToolCallOutcome> {
    const { server, tool, arguments: args } = request;
    const id = request.id ?? crypto.randomUUID();
    if (this.pending.has(id)) return { ok: false, error: { code: "duplicate_call", message: `an app call ${id} is already pending` } };
    const call = { controller: new AbortController(), asking: false };
    this.pending.set(id, call);
    const signal = call.controller.signal;
    let decision: ApprovalDecision | undefined;
    let audit: ((end: Pick<AuditedCall, "status" | "durationMs" | "result" | "errorCode">) => void) | undefined;
    let started = Date.now();
    try {
      await mcp.ensureConnected();
      // A tool its server keeps for the model alone (`_meta.ui.visibility: ["model"]`) does not exist for an app.
      const found = mcp
        .host()
        .tools()
        .find((t) => t.server === server && t.name === tool && visibleTo(t.uiVisibility, "app"));
      if (!found) throw new ToolNotFoundError(`${server}.${tool}`);
      call.asking = true;
      const at = Date.now();
      decision = await approvals.decideTool(null, { callId: appCallId(id), server, tool, arguments: args }, signal, true);
      call.asking = false;
      const decided = decision;
      audit = (end) =>
        audited?.({
          callId: appCallId(id),
          server,
          tool,
          arguments: args,
          decision: decided,
          turnId: null,
          askedBy: { kind: "app" },
          at,
          endedAt: Date.now(),
          ...end,
        });
      if (!decision.allowed) {
        audit({ status: signal.aborted || decision.answer === "cancelled" ? "cancelled" : "denied", durationMs: 0 });
        return {
          ok: false,
          error: { code: signal.aborted ? "cancelled" : "denied", message: signal.aborted ? "The call was cancelled." : "The user denied this tool call." },
        };
      }
      started = Date.now();
      const result = await mcp.host().callTool(found.qualifiedName, args, { signal });
      audit({ status: result.isError ? "tool_error" : "ok", durationMs: Date.now() - started, result });
      return { ok: true, result };
    } catch (error) {
      if (decision?.allowed) audit?.({ durationMs: Date.now() - started, ...failedEnd(error) });
      return failure(error);
    } finally {
      if (this.pending.get(id) === call) this.pending.delete(id);
    }
  }
}
