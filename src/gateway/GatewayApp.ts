// One per app a person connected to /mcp (named by its app id): the upstream connections,
// approvals and MCP sessions of that app. Reached only from the Worker after the app's
// OAuth token was checked (src/gateway/forward.ts); until that lane lands it serves nothing.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../config/env";

export class GatewayApp extends DurableObject<Env> {
  override async fetch(_request: Request): Promise<Response> {
    return Response.json({ error: { code: "not_found", message: "no MCP endpoint here yet" } }, { status: 404 });
  }
}
