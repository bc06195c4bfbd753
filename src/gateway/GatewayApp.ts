// One per app a person connected to /mcp (named by its app id, props.ts): the upstream
// connections, approvals and MCP sessions of that app. Reached only from the Worker after the
// app's OAuth token was checked (forward.ts); it still checks the person and the generation
// itself, so a Disconnect refuses the very next call whatever the token store says.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../config/env";
import { Approvals } from "../approval/approvals";
import { AppSettings } from "./app-settings";
import { AppState, type AppRecord } from "./app-state";
import type { McpHttpHandler } from "@modelcontextprotocol/server";
import { errorMessage } from "../shared/logger";
import { GatewayParts } from "./gateway-parts";
import { HeldApprovals } from "./held-approval";
import { LegacyLane } from "./legacy-lane";
import { createSurface } from "./mcp-surface";
import { createModernLane } from "./modern-lane";
import { serverLib, type ServerLib } from "./server-lib";
import { decodeGatewayHeader, GATEWAY_HEADER, type GatewayOwner } from "./props";
import { StreamWatch } from "./stream-watch";
import type { OwnerChange } from "../users/app-watchers";

export interface AppActivation {
  owner: GatewayOwner;
  gen: number;
  client: AppRecord["client"];
  samplingAllowed: boolean;
}

export class GatewayApp extends DurableObject<Env> {
  protected readonly state = new AppState(this.ctx.storage);
  /** Calls held while the person's page shows their question, and the page's later one-shots (outlive the parts). */
  private readonly held = new HeldApprovals(new AppSettings(this.ctx.storage.sql));

  /** Consent given (src/http/connect.ts): from now on tokens of generation `gen` are served. */
  async activate(activation: AppActivation): Promise<void> {
    const record = await this.state.get();
    if (record && record.owner.id !== activation.owner.id) throw new Error("an app object serves one person");
    const next = { ...activation, activeGen: activation.gen };
    await this.state.put(next);
    // The same consent with another sampling permission (Connected apps' switch): the live parts take it, and the
    // app's 2025 sessions and streams stay open (dropped, a connected client's next request would be 404).
    if (this.lanes && record?.activeGen === next.activeGen && sameClient(record.client, next.client)) {
      this.lanes.parts.allowSampling(next.samplingAllowed);
      return;
    }
    // A new consent (or the first): the next request builds the app's parts on the new record.
    await this.dropParts();
  }

  /** Disconnect: every token of this app is refused from the next request on. */
  async disconnect(): Promise<void> {
    const record = await this.state.get();
    if (record) await this.state.put({ ...record, activeGen: 0 });
    // What the person always allowed went with the app: connected again (the same client), it asks again.
    this.approvals().forget();
    this.held.forget();
    await this.dropParts();
  }

  /** The tools the person always allows for this app (Connected apps lists them), as `server.tool`. */
  async alwaysAllowed(): Promise<string[]> {
    return this.approvals().alwaysAllowedFrame().tools;
  }

  /** Takes one "Always allow for this app" back: the tool asks again from its next call. False when it was not allowed. */
  async revokeAlways(qualified: string): Promise<boolean> {
    return this.approvals().revoke(qualified);
  }

  /**
   * The person answered a held question of this app in their page (the account took the answer
   * once: src/http/connected-apps.ts). A call still held runs or is denied; else an approval is
   * the one-shot of that call.
   */
  async answerHeld(id: string, approved: boolean, qualified: string, argsHash: string): Promise<"held_call" | "one_shot" | "declined"> {
    return this.held.answered(id, approved, qualified, argsHash);
  }

  /** The app's approvals: its live parts' own (their settings cache stays true), else over its storage. */
  private approvals(): Approvals {
    if (this.lanes) return this.lanes.parts.approvals;
    return new Approvals({ required: true, alwaysAllow: () => [], store: new AppSettings(this.ctx.storage.sql), broadcast: () => undefined });
  }

  override async fetch(request: Request): Promise<Response> {
    const props = decodeGatewayHeader(request.headers.get(GATEWAY_HEADER));
    if (!props || !(await this.state.admits(props.identity, props.gen))) return invalidToken();
    const record = await this.state.get();
    if (!record) return invalidToken();
    const lanes = await this.lanesFor(record, props.appId);
    this.used(lanes.parts);
    const response = await ((await lanes.lib.isLegacyRequest(request)) ? lanes.legacy.handle(request) : lanes.modern.fetch(request));
    // A stream this request opened is known to the account before the client sees it open.
    await lanes.watch.settled();
    return response;
  }

  /** How many times the account told this object the person's servers changed (tests read it: an idle app is never told). */
  ownerChanges = 0;

  /**
   * The person's servers changed (src/users/app-watchers.ts; called only while a client of this
   * app listens): their list is read again, a server signed in to or out of connects again, and
   * every listening client hears tools, prompts and resources changed.
   */
  async ownerChanged(change: OwnerChange): Promise<void> {
    this.ownerChanges++;
    const lanes = this.lanes;
    if (!lanes) return;
    try {
      await lanes.parts.prepare(true);
      if (change.oauth) await lanes.parts.mcp.reconnectServer(change.oauth);
    } catch (error) {
      // The clients list again anyway: what failed to connect is simply not offered.
      lanes.parts.log.warn("gateway servers read again failed", { error: errorMessage(error) });
    }
    lanes.modern.notify.toolsChanged();
    lanes.modern.notify.promptsChanged();
    lanes.modern.notify.resourcesChanged();
    for (const server of lanes.legacy.servers()) {
      void server.sendToolListChanged().catch(() => undefined);
      void server.sendPromptListChanged().catch(() => undefined);
      void server.sendResourceListChanged().catch(() => undefined);
    }
  }

  /** The app's servers and its two MCP lanes, built by the first request of this object's life. */
  private lanes?: { lib: ServerLib; parts: GatewayParts; modern: McpHttpHandler; legacy: LegacyLane; watch: StreamWatch };

  private async lanesFor(record: AppRecord, appId: string) {
    if (this.lanes) return this.lanes;
    const lib = await serverLib();
    if (this.lanes) return this.lanes;
    const parts = new GatewayParts(this.env, this.ctx.storage, appId, record, (work) => this.ctx.waitUntil(work));
    // The instructions name the person's servers: read before the first server is made.
    const surface = async () => {
      await parts.prepare();
      return createSurface(lib, parts, this.held);
    };
    // While a client listens, the account tells this app when the person's servers change.
    const watch = new StreamWatch(async (until) => void (await parts.account().watchApp(appId, until)));
    const modern = createModernLane(lib, surface, (error) => parts.log.warn("gateway request failed", { error: errorMessage(error) }), watch);
    const legacy = new LegacyLane(lib, surface, watch);
    // list_changed: 2026 listen streams through the handler's bus, live 2025 sessions each.
    parts.onChange = () => {
      modern.notify.toolsChanged();
      for (const server of legacy.servers()) void server.sendToolListChanged().catch(() => undefined);
    };
    this.lanes = { lib, parts, modern, legacy, watch };
    return this.lanes;
  }

  private async dropParts(): Promise<void> {
    const lanes = this.lanes;
    this.lanes = undefined;
    if (!lanes) return;
    await Promise.all([lanes.modern.close(), lanes.legacy.close(), lanes.parts.close()].map((p) => p.catch(() => undefined)));
  }

  private lastUsedReport = 0;

  /** Connected apps shows each app's last use: told to the account at most once a minute. */
  private used(parts: GatewayParts): void {
    const now = Date.now();
    if (now - this.lastUsedReport < USED_EVERY_MS) return;
    this.lastUsedReport = now;
    this.ctx.waitUntil(
      parts
        .account()
        .appUsed(parts.appId, now)
        .catch(() => (this.lastUsedReport = 0)),
    );
  }
}

const USED_EVERY_MS = 60_000;

const sameClient = (a: AppRecord["client"], b: AppRecord["client"]) => a.id === b.id && a.name === b.name && a.redirectHost === b.redirectHost;

/** What a client gets for a token this app no longer honours: re-authorize (RFC 6750). */
function invalidToken(): Response {
  return Response.json(
    { error: { code: "app_disconnected", message: "this app was disconnected or its grant replaced; sign in again" } },
    { status: 401, headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' } },
  );
}
