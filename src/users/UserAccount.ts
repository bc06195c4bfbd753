// One Durable Object per user (named by the identity's id): the user's list of
// chat sessions, their spend — request rates and daily model tokens — counted
// across all their sessions, the remote MCP servers they added at runtime, and their
// paired machines, whose bridges' sockets this object holds (src/machines/relay.ts),
// all kept across restarts in SQLite.
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { takeToken, type Bucket, type BucketLimits } from "./token-bucket";
import { UserServerInputSchema, type StoredUserServer } from "./user-servers";
import { OAuthStore, type PendingSignIn } from "./oauth-store";
import { LoginStore } from "./logins";
import { Reservations } from "./reservations";
import type { OAuthRecord } from "../mcp/oauth/provider";
import { MachineStore, type Machine, type MachineView } from "../machines/machine-store";
import { MachineRelay } from "../machines/relay";
import { machineTunnelPath } from "../machines/tunnel-url";

/** The user's runtime servers and machines, as a session reads them: the lists only when `version` changed. */
export type ServersSnapshot = { version: string; servers?: StoredUserServer[]; machines?: MachineView[] };

export const SessionSummarySchema = z.object({ id: z.string(), title: z.string().nullable(), lastActivity: z.number() });
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export type SpendKind = "turn" | "call";

/** A turn's worst-case tokens to hold (`id`), and the hold of the session's previous turn to end (`release`). */
export interface TokenHold {
  id: string;
  tokens: number;
  release?: string;
}

export type SpendDecision =
  | { ok: true }
  | { ok: false; code: "rate_limited"; message: string; retryAfterMs: number }
  | { ok: false; code: "budget_exhausted"; message: string };

const TITLE_CHARS = 80;

const BucketSchema = z.object({ tokens: z.number(), at: z.number() });

/** Where a spend bucket is kept (the key-value API: it can be written without holding the answer back). */
export const bucketKey = (kind: SpendKind) => `bucket:${kind}`;

/** The UTC day a usage figure counts towards. */
const today = (now: number) => new Date(now).toISOString().slice(0, 10);

export class UserAccount extends DurableObject<unknown> {
  private readonly sql: SqlStorage;
  // Kept in memory (this object is single-threaded and the only writer of its tables), so a
  // turn's usage and server check cost one statement each, or none.
  private versionCache?: string;
  private usageDay?: string;
  private readonly oauth: OAuthStore;
  private readonly logins: LoginStore;
  private readonly machines: MachineStore;
  private readonly reservations: Reservations;
  /** The machines as sessions see them, with their part of the servers version; dropped whenever one changes (relay.ts). */
  private machineViews?: { views: MachineView[]; version: string };
  private readonly relay: MachineRelay;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT, created_at INTEGER NOT NULL, last_activity INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS usage (day TEXT PRIMARY KEY, tokens INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS servers (name TEXT PRIMARY KEY, entry TEXT NOT NULL, updated_at INTEGER NOT NULL)`);
    this.oauth = new OAuthStore(this.sql);
    this.logins = new LoginStore(this.sql);
    this.machines = new MachineStore(this.sql);
    this.reservations = new Reservations(this.sql);
    this.relay = new MachineRelay(ctx, this.machines, () => (this.machineViews = undefined));
  }

  // ---- paired machines (src/machines/): the bridge's socket and sessions' requests to it ----

  /** Reached only through stubs the Worker makes: a bridge's upgrade (routed by its credential) or a session's tunnelled request. */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/machines/connect") return this.relay.accept(request, url.searchParams.get("user") ?? "");
    const tunnel = machineTunnelPath(url);
    if (tunnel) return this.relay.tunnel(request, tunnel.machineId, tunnel.path);
    return Response.json({ error: { code: "not_found", message: "no such route" } }, { status: 404 });
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

  // ---- page logins in token mode (src/users/logins.ts); asked on every cookie request ----

  startLogin(id: string, expiresAt: number, now = Date.now()): void {
    this.logins.start(id, expiresAt, now);
  }

  loginActive(id: string, now = Date.now()): boolean {
    return this.logins.isActive(id, now);
  }

  endLogin(id: string): void {
    this.logins.end(id);
  }

  /** "Sign out everywhere": how many logins ended. */
  endAllLogins(): number {
    return this.logins.endAll();
  }

  // ---- OAuth sign-in to servers (src/users/oauth-store.ts); called by the Worker and the user's sessions ----

  oauthLoad(server: string): OAuthRecord | undefined {
    return this.oauth.load(server);
  }

  oauthSave(server: string, patch: Partial<OAuthRecord> & { serverUrl: string }): void {
    this.oauth.save(server, patch);
  }

  oauthSignedIn(): string[] {
    return this.oauth.signedInServers();
  }

  oauthForget(server: string): void {
    this.oauth.forget(server);
  }

  /** Signing out (or removing the server): the record, forgotten here when it held tokens, for the caller to revoke. */
  oauthTake(server: string): OAuthRecord | undefined {
    const record = this.oauth.load(server);
    if (record?.tokens) this.oauth.forget(server);
    return record;
  }

  oauthStartSignIn(state: string, server: string, session: string): void {
    this.oauth.startSignIn(state, server, session);
  }

  oauthSaveVerifier(state: string, verifier: string): void {
    this.oauth.saveVerifier(state, verifier);
  }

  oauthTakeSignIn(state: string): PendingSignIn | undefined {
    return this.oauth.takeSignIn(state);
  }

  // ---- runtime MCP servers ----

  listServers(): StoredUserServer[] {
    return this.sql
      .exec<{ entry: string }>("SELECT entry FROM servers ORDER BY name")
      .toArray()
      .flatMap((row) => {
        const parsed = UserServerInputSchema.safeParse(JSON.parse(row.entry));
        return parsed.success ? [parsed.data] : [];
      });
  }

  getServer(name: string): StoredUserServer | undefined {
    return this.listServers().find((s) => s.name === name);
  }

  /** Adds (`create`) or replaces a server; names are unique per user, whatever their case. */
  putServer(server: StoredUserServer, create: boolean): { ok: true } | { ok: false; code: "duplicate_name" | "not_found" } {
    const existing = this.listServers().find((s) => s.name.toLowerCase() === server.name.toLowerCase());
    if (create && existing) return { ok: false, code: "duplicate_name" };
    if (!create && existing?.name !== server.name) return { ok: false, code: "not_found" };
    this.sql.exec(
      "INSERT INTO servers (name, entry, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at",
      server.name,
      JSON.stringify(server),
      Date.now(),
    );
    this.versionCache = undefined;
    return { ok: true };
  }

  deleteServer(name: string): boolean {
    this.versionCache = undefined;
    return this.sql.exec("DELETE FROM servers WHERE name = ? RETURNING name", name).toArray().length > 0;
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
   * brings the tokens the session's earlier turns spent (`usage`).
   */
  beginTurn(
    limits: BucketLimits & { dailyTokens?: number },
    known?: string,
    usage = 0,
    hold?: TokenHold,
    now = Date.now(),
  ): { decision: SpendDecision; servers: ServersSnapshot } {
    // The session's tokens since its last call, counted before its budget is checked (src/session/pending-usage.ts);
    // its previous turn's hold ends with them.
    if (usage > 0 || hold?.release) this.addUsage(usage, hold?.release, now);
    return { decision: this.admit("turn", limits, now, hold), servers: this.serversSnapshot(known) };
  }

  /** A sampling answer's worst case, held before the model is asked; the refusal when the budget has no room. */
  holdSampling(id: string, tokens: number, dailyTokens: number, now = Date.now()): string | undefined {
    const spent = this.tokensUsed(now) + this.reservations.held(now, id);
    if (spent >= dailyTokens) return `the user's daily model budget of ${dailyTokens} tokens is used up`;
    this.reservations.hold(id, Math.min(tokens, dailyTokens - spent), now);
    return undefined;
  }

  /** Changes whenever the list or an entry changes: sessions compare it to reconcile. */
  serversVersion(): string {
    if (this.versionCache !== undefined) return this.versionCache;
    const row = this.sql
      .exec<{ n: number; at: number | null; names: string | null }>(
        "SELECT COUNT(*) AS n, MAX(updated_at) AS at, GROUP_CONCAT(name) AS names FROM (SELECT name, updated_at FROM servers ORDER BY name)",
      )
      .one();
    this.versionCache = `${row.n}:${row.at ?? 0}:${row.names ?? ""}`;
    return this.versionCache;
  }

  // A runaway client creating sessions is stopped by MAX_SESSIONS_PER_USER (reserveSession),
  // not by dropping the oldest from the list: those would live on, unlisted and undeletable.
  addSession(id: string, now = Date.now()): void {
    this.sql.exec("INSERT INTO sessions (id, title, created_at, last_activity) VALUES (?, NULL, ?, ?) ON CONFLICT(id) DO NOTHING", id, now, now);
  }

  /** Whether `id` is listed already or one more session fits under `max`. */
  hasRoomForSession(id: string, max: number): boolean {
    const row = this.sql.exec<{ n: number; listed: number }>("SELECT COUNT(*) AS n, COUNT(CASE WHEN id = ? THEN 1 END) AS listed FROM sessions", id).one();
    return row.listed > 0 || row.n < max;
  }

  /** Lists a new session when it fits under `max`, in one step (concurrent creations cannot pass the cap together). */
  reserveSession(id: string, max: number, now = Date.now()): boolean {
    if (!this.hasRoomForSession(id, max)) return false;
    this.addSession(id, now);
    return true;
  }

  /** Marks activity; the first message of a session becomes its title. */
  touchSession(id: string, firstMessage: string | undefined, now = Date.now()): void {
    const title = firstMessage?.replace(/\s+/g, " ").trim().slice(0, TITLE_CHARS) || null;
    this.addSession(id, now);
    this.sql.exec("UPDATE sessions SET last_activity = ?, title = COALESCE(title, ?) WHERE id = ?", now, title, id);
  }

  removeSession(id: string): void {
    this.sql.exec("DELETE FROM sessions WHERE id = ?", id);
  }

  listSessions(): SessionSummary[] {
    return this.sql
      .exec<{ id: string; title: string | null; last_activity: number }>(
        "SELECT id, title, last_activity FROM sessions ORDER BY last_activity DESC, created_at DESC",
      )
      .toArray()
      .map((row) => SessionSummarySchema.parse({ id: row.id, title: row.title, lastActivity: row.last_activity }));
  }

  /** Counts one turn or direct call against the user's rate, and for turns checks the daily token budget. */
  admit(kind: SpendKind, limits: BucketLimits & { dailyTokens?: number }, now = Date.now(), hold?: TokenHold): SpendDecision {
    // What other running turns and sampling answers still hold counts as spent (reservations.ts).
    const held = kind === "turn" && limits.dailyTokens !== undefined ? this.reservations.held(now, hold?.id) : 0;
    const spent = kind === "turn" && limits.dailyTokens !== undefined ? this.tokensUsed(now) + held : 0;
    if (kind === "turn" && limits.dailyTokens !== undefined && spent >= limits.dailyTokens) {
      const running = held > 0 ? ` Your turns still running hold ${held} tokens of it until they finish.` : "";
      return {
        ok: false,
        code: "budget_exhausted",
        message: `Your daily model budget of ${limits.dailyTokens} tokens is used up; it renews at 00:00 UTC.${running}`,
      };
    }
    const stored = BucketSchema.safeParse(this.ctx.storage.kv.get(bucketKey(kind)));
    const { bucket, waitMs } = takeToken(stored.success ? (stored.data as Bucket) : undefined, limits, now);
    // Every turn passes here before its first model call. A write's commit holds back what
    // the object sends next (its answer) until the storage confirms it, a disk sync or a
    // replication round trip per turn; the bucket need not be confirmed before answering:
    // it is still written, and a failed write restarts the object.
    void this.ctx.storage.put(bucketKey(kind), bucket, { allowUnconfirmed: true });
    if (waitMs > 0) {
      const what = kind === "turn" ? "messages" : "tool calls";
      return { ok: false, code: "rate_limited", message: `Too many ${what}: try again in ${Math.ceil(waitMs / 1000)} s.`, retryAfterMs: waitMs };
    }
    // The turn's worst case, within what is left: parallel turns then pass the budget by one turn's worth at most.
    if (hold && limits.dailyTokens !== undefined) this.reservations.hold(hold.id, Math.min(hold.tokens, limits.dailyTokens - spent), now);
    return { ok: true };
  }

  /** `release`: the hold these tokens settle (a finished turn's or sampling answer's). */
  addUsage(tokens: number, release?: string, now = Date.now()): number {
    this.reservations.release(release);
    if (!Number.isFinite(tokens) || tokens <= 0) return this.tokensUsed(now);
    const day = today(now);
    const row = this.sql
      .exec<{ tokens: number }>(
        "INSERT INTO usage (day, tokens) VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET tokens = tokens + excluded.tokens RETURNING tokens",
        day,
        Math.round(tokens),
      )
      .one();
    // Only today's figure matters; older days are dropped (once per day and wake).
    if (this.usageDay !== day) this.sql.exec("DELETE FROM usage WHERE day <> ?", day);
    this.usageDay = day;
    return row.tokens;
  }

  tokensUsed(now = Date.now()): number {
    return this.sql.exec<{ tokens: number }>("SELECT tokens FROM usage WHERE day = ?", today(now)).toArray()[0]?.tokens ?? 0;
  }
}
