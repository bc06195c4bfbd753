// One per app a person connected to /mcp (named by its app id, props.ts): the upstream
// connections, approvals and MCP sessions of that app. Reached only from the Worker after the
// app's OAuth token was checked (forward.ts); it still checks the person and the generation
// itself, so a Disconnect refuses the very next call whatever the token store says.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../config/env";
import { AppState, type AppRecord } from "./app-state";
import { decodeGatewayHeader, GATEWAY_HEADER, type GatewayOwner } from "./props";

export interface AppActivation {
  owner: GatewayOwner;
  gen: number;
  client: AppRecord["client"];
  samplingAllowed: boolean;
}

export class GatewayApp extends DurableObject<Env> {
  protected readonly state = new AppState(this.ctx.storage);

  /** Consent given (src/http/connect.ts): from now on tokens of generation `gen` are served. */
  async activate(activation: AppActivation): Promise<void> {
    const record = await this.state.get();
    if (record && record.owner.id !== activation.owner.id) throw new Error("an app object serves one person");
    await this.state.put({ ...activation, activeGen: activation.gen });
  }

  /** Disconnect: every token of this app is refused from the next request on. */
  async disconnect(): Promise<void> {
    const record = await this.state.get();
    if (record) await this.state.put({ ...record, activeGen: 0 });
  }

  override async fetch(request: Request): Promise<Response> {
    const props = decodeGatewayHeader(request.headers.get(GATEWAY_HEADER));
    if (!props || !(await this.state.admits(props.identity, props.gen))) return invalidToken();
    return Response.json({ error: { code: "not_found", message: "no MCP endpoint here yet" } }, { status: 404 });
  }
}

/** What a client gets for a token this app no longer honours: re-authorize (RFC 6750). */
function invalidToken(): Response {
  return Response.json(
    { error: { code: "app_disconnected", message: "this app was disconnected or its grant replaced; sign in again" } },
    { status: 401, headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' } },
  );
}
