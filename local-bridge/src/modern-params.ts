// SEP-2243 custom headers (MCP 2026-07-28): a tool's input schema may mark an argument
// with `x-mcp-header: Name`, and a client then sends its value in `Mcp-Param-Name` too, so
// intermediaries can route on it. The server MUST check the header against the body: a
// value in the body without its header, a header that does not decode, or one that
// decodes to something else is refused with -32020 (HeaderMismatch), 400. A 2025 child
// knows nothing of this, so the bridge checks it, from the child's own tool list: the
// schemas it has seen in tools/list answers (any session's, or its own ask on a miss),
// forgotten when the child says its list changed or is restarted. The rules are the v2
// SDK's (`scanXMcpHeaderDeclarations`, `validateMcpParamHeaders` of
// @modelcontextprotocol/server 2.4), written here for the reason modern-protocol.ts gives.
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Downstream } from "./downstream";
import { isErrorResponse, isResponse } from "./messages";
import { decodeHeaderValue, MODERN_ERROR, type Refusal } from "./modern-protocol";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

export interface ParamHeader {
  path: string[];
  name: string;
  type?: string;
}

/** The `x-mcp-header` marks reachable through `properties` alone (the only place the SEP allows them). */
export function paramHeaders(schema: unknown, path: string[] = []): ParamHeader[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const found: ParamHeader[] = [];
  for (const [key, child] of Object.entries(schema.properties)) {
    if (!isObject(child)) continue;
    const mark = child["x-mcp-header"];
    if (typeof mark === "string" && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(mark))
      found.push({ path: [...path, key], name: mark, type: typeof child.type === "string" ? child.type : undefined });
    found.push(...paramHeaders(child, [...path, key]));
  }
  return found;
}

function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

function mismatch(header: string, detail: string): Refusal {
  return {
    status: 400,
    code: MODERN_ERROR.headerMismatch,
    message: `Bad Request: the request headers and body disagree: ${detail}`,
    data: { mismatch: { header, body: detail } },
  };
}

/** The first disagreement of a call's `Mcp-Param-*` headers with its arguments. */
export function checkParamHeaders(marks: readonly ParamHeader[], args: unknown, header: (name: string) => string | undefined): Refusal | undefined {
  for (const mark of marks) {
    let value: unknown = args;
    for (const key of mark.path) value = isObject(value) ? value[key] : undefined;
    const body = asText(value);
    if (value === undefined || value === null || body === undefined) continue;
    const name = `Mcp-Param-${mark.name}`;
    const given = header(name.toLowerCase());
    const where = mark.path.join(".");
    if (given === undefined) return mismatch(name, `the body carries ${where}=${JSON.stringify(value)} but the ${name} header is absent`);
    const decoded = decodeHeaderValue(given);
    if (decoded === undefined) return mismatch(name, `the ${name} header carries an invalid Base64 sentinel value`);
    const numeric = (mark.type === "integer" || mark.type === "number") && typeof value === "number" && /^-?\d+(\.\d+)?$/.test(decoded);
    if (numeric ? Number(decoded) !== value : decoded !== body)
      return mismatch(name, `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(value)}`);
  }
  return undefined;
}

/** What of the proxy the index needs: its requests to the child, for its own tools/list. */
export interface ToolSource {
  fromSession(session: Downstream, message: JSONRPCMessage): Promise<void>;
}

/** The child's tools' header marks, by tool name. */
export class ToolHeaderIndex {
  private marks = new Map<string, ParamHeader[]>();
  /** Every page of the list was read since the child last changed it. */
  private whole = false;
  private reading?: Promise<void>;
  private asks = 0;

  /** A tools/list answer (a session's or the bridge's own): its tools' marks. */
  learn(result: unknown): void {
    if (!isObject(result) || !Array.isArray(result.tools)) return;
    for (const tool of result.tools) if (isObject(tool) && typeof tool.name === "string") this.marks.set(tool.name, paramHeaders(tool.inputSchema));
  }

  /** The child's list changed, or a new child runs. */
  forget(): void {
    this.marks = new Map();
    this.whole = false;
    this.reading = undefined;
  }

  /** A 2026 tools/call's refusal, if its headers disagree with its arguments; reads the list first when the tool is not known. */
  async check(source: ToolSource, user: string, request: JSONRPCRequest, header: (name: string) => string | undefined): Promise<Refusal | undefined> {
    const params = isObject(request.params) ? request.params : {};
    const name = typeof params.name === "string" ? params.name : undefined;
    if (name === undefined) return undefined;
    if (!this.marks.has(name) && !this.whole) await this.readAll(source, user).catch(() => undefined);
    const marks = this.marks.get(name);
    return marks && marks.length > 0 ? checkParamHeaders(marks, params.arguments, header) : undefined;
  }

  private readAll(source: ToolSource, user: string): Promise<void> {
    this.reading ??= (async () => {
      let cursor: string | undefined;
      do {
        const result = await this.ask(source, user, cursor);
        this.learn(result);
        cursor = isObject(result) && typeof result.nextCursor === "string" ? result.nextCursor : undefined;
      } while (cursor !== undefined);
      this.whole = true;
    })();
    return this.reading;
  }

  /** One tools/list page, asked as the user whose call needs it (so routing sees one user in flight). */
  private ask(source: ToolSource, user: string, cursor: string | undefined): Promise<unknown> {
    const id: RequestId = `tool-headers-${++this.asks}`;
    return new Promise((resolve, reject) => {
      const caller: Downstream = {
        id,
        user,
        clientCapabilities: {},
        deliver: (message) => {
          if (!isResponse(message)) return false;
          if (isErrorResponse(message)) reject(new Error(message.error.message));
          else resolve(message.result);
          return true;
        },
        close: () => reject(new Error("stopped")),
      };
      source.fromSession(caller, { jsonrpc: "2.0", id, method: "tools/list", ...(cursor ? { params: { cursor } } : {}) }).catch(reject);
    });
  }
}
