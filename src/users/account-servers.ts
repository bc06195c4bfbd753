// UserAccount's RPC for the person's servers: paired machines (the bridge's socket and
// sessions' requests to it, held by this object), runtime MCP servers, and the one call
// a turn makes (its admission with the server list when it changed).
import type { Profile } from "./presets";
import { AccountSignIns } from "./account-sign-ins";
import type { StoredUserServer } from "./user-servers";
import type { SpendDecision, SpendLimits, TokenHold } from "./spend-ledger";
import type { Machine, MachineView } from "../machines/machine-store";
import { machineTunnelPath } from "../machines/tunnel-url";
import { errorJson } from "../shared/error-body";
import type { RuntimeServerStore } from "./server-store";
import { ERASING_DECISION } from "./erase-state";
import type { RulesSnapshot } from "../shared/argument-rule";

/** The user's runtime servers and machines, as a session reads them: the lists only when `version` changed. */
export type ServersSnapshot = { version: string; servers?: StoredUserServer[]; machines?: MachineView[] };

export class AccountServers extends AccountSignIns {
  // ---- paired machines (src/machines/): the bridge's socket and sessions' requests to it ----

  /** Reached only through stubs the Worker makes: a bridge's upgrade (routed by its credential) or a session's tunnelled request. */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/machines/connect") return this.relay.accept(request, url.searchParams.get("user") ?? "");
    const tunnel = machineTunnelPath(url);
    if (tunnel) return this.relay.tunnel(request, tunnel.machineId, tunnel.path);
    return errorJson("not_found", "no such route");
  }

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    this.relay.message(socket, message);
  }

  override webSocketClose(socket: WebSocket): void {
    this.relay.closed(socket);
  }

  override webSocketError(socket: WebSocket): void {
    this.relay.closed(socket);
  }

  addMachine(id: string, name: string, secretHash: string): Machine | undefined {
    this.machineViews = undefined;
    return this.machines.add(id, name, secretHash);
  }

  listMachines(): MachineView[] {
    return this.relay.views();
  }

  revokeMachine(id: string): boolean {
    return this.relay.revoke(id);
  }

  // ---- runtime MCP servers ----

  listServers(): StoredUserServer[] {
    return this.servers.list();
  }

  getServer(name: string): StoredUserServer | undefined {
    return this.servers.get(name);
  }

  putServer(server: StoredUserServer, create: boolean): ReturnType<RuntimeServerStore["put"]> {
    const put = this.servers.put(server, create);
    if (put.ok) this.ownerChanged();
    return put;
  }

  deleteServer(name: string): boolean {
    const deleted = this.servers.delete(name);
    if (deleted) this.ownerChanged();
    return deleted;
  }

  /**
   * The version, and the list only when it differs from `known`: a session asks at every
   * turn, and the list rarely changes.
   */
  serversSnapshot(known?: string): ServersSnapshot {
    // Every turn asks: the machines are read again only after one changed (kept in memory until then).
    if (!this.machineViews) {
      const views = this.relay.views();
      // A machine coming online, going offline or announcing other servers changes the version too.
      this.machineViews = { views, version: views.map((m) => `${m.id}:${m.online ? 1 : 0}:${m.name}:${m.servers.join(",")}`).join(";") };
    }
    const version = `${this.serversVersion()}|${this.machineViews.version}`;
    return version === known ? { version } : { version, servers: this.listServers(), machines: this.machineViews.views };
  }

  /**
   * What a turn asks of the account, in one call: its admission, and the server list
   * when it changed since `known` (a session reconciles its connections with it); it
   * brings the tokens the session's earlier turns spent (`usage`). `knownRules`: the version of
   * the person's "all my chats" rules the session has (the list comes only when it changed).
   * The person's instructions ride along when changed since `knownProfile`.
   */
  beginTurn(
    limits: SpendLimits,
    known?: string,
    usage = 0,
    hold?: TokenHold,
    now = Date.now(),
    knownRules?: string,
    knownProfile?: number,
  ): { decision: SpendDecision; servers: ServersSnapshot; rules: RulesSnapshot; generation: number; profile: Profile } {
    // The session's tokens since its last call, counted before its budget is checked (src/session/pending-usage.ts);
    // its previous turn's hold ends with them.
    if (usage > 0 || hold?.release) this.spend.addUsage(usage, hold?.release, now);
    // The generation rides along (no extra call): the turn's later writes carry it (touchSession).
    const decision = this.erase.erasing ? ERASING_DECISION : this.spend.admit("turn", limits, now, hold);
    // The person's instructions ride along too, their text only when changed since `knownProfile` (src/users/presets.ts).
    return {
      decision,
      servers: this.serversSnapshot(known),
      rules: this.argumentRules.snapshot(knownRules),
      generation: this.erase.generation,
      profile: this.presets.profile(knownProfile),
    };
  }

  /** Changes whenever the list or an entry changes: sessions compare it to reconcile. */
  serversVersion(): string {
    return this.servers.version();
  }
}
