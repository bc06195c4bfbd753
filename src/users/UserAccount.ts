// One Durable Object per user (named by the identity's id): the user's list of
// chat sessions, their spend (src/users/spend-ledger.ts) counted across all their sessions, the remote MCP servers they added at runtime, and their
// paired machines, whose bridges' sockets this object holds (src/machines/relay.ts),
// all kept across restarts in SQLite.
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { UserServerInputSchema, type StoredUserServer } from "./user-servers";
import { ModelProviderStore, type StoredUserProvider } from "./user-providers";
import { OAuthRecords, type PendingSignIn } from "./oauth-records";
import { LoginStore } from "./logins";
import { SpendLedger, type SpendDecision, type SpendKind, type SpendLimits, type TokenHold } from "./spend-ledger";
import type { OAuthRecord } from "../mcp/oauth/provider";
import { MachineStore, type Machine, type MachineView } from "../machines/machine-store";
import { MachineRelay } from "../machines/relay";
import { machineTunnelPath } from "../machines/tunnel-url";
import { errorJson } from "../shared/error-body";
import { FileLedger, type FileReservation } from "./file-ledger";
import type { FileRecord } from "../files/record";
import { SessionSearch, type IndexedMessage, type SearchResult } from "./session-search";
import { ShareList, type ShareSummary } from "./share-list";
import { sharedConversation } from "../share/share-object";
import { OwnerDiscovery, type OwnerDiscoveryRow } from "./owner-discovery";
import type { Env } from "../config/env";

/** The user's runtime servers and machines, as a session reads them: the lists only when `version` changed. */
export type ServersSnapshot = { version: string; servers?: StoredUserServer[]; machines?: MachineView[] };

export const SessionSummarySchema = z.object({ id: z.string(), title: z.string().nullable(), lastActivity: z.number(), pinned: z.boolean() });
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

const TITLE_CHARS = 80;

export class UserAccount extends DurableObject<unknown> {
  private readonly sql: SqlStorage;
  // Kept in memory (this object is single-threaded and the only writer of its tables), so a
  // turn's usage and server check cost one statement each, or none.
  private versionCache?: string;
  private readonly oauth: OAuthRecords;
  private readonly logins: LoginStore;
  private readonly machines: MachineStore;
  private readonly spend: SpendLedger;
  private readonly providers: ModelProviderStore;
  /** The machines as sessions see them, with their part of the servers version; dropped whenever one changes (relay.ts). */
  private machineViews?: { views: MachineView[]; version: string };
  private readonly relay: MachineRelay;
  private readonly files: FileLedger;
  private readonly search: SessionSearch;
  private readonly shares: ShareList;
  private readonly discovery: OwnerDiscovery;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT, created_at INTEGER NOT NULL, last_activity INTEGER NOT NULL)`);
    // Pinned sessions list first (added after the table: older accounts gain the column here).
    if (
      !this.sql
        .exec<{ name: string }>("PRAGMA table_info(sessions)")
        .toArray()
        .some((c) => c.name === "pinned")
    )
      this.sql.exec("ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0");
    this.search = new SessionSearch(this.sql);
    this.shares = new ShareList(this.sql);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS servers (name TEXT PRIMARY KEY, entry TEXT NOT NULL, updated_at INTEGER NOT NULL)`);
    this.oauth = new OAuthRecords(this.sql);
    this.logins = new LoginStore(this.sql);
    this.machines = new MachineStore(this.sql);
    this.spend = new SpendLedger(this.sql, ctx.storage);
    this.providers = new ModelProviderStore(this.sql);
    this.relay = new MachineRelay(ctx, this.machines, () => (this.machineViews = undefined));
    this.files = new FileLedger(this.sql);
    this.discovery = new OwnerDiscovery(this.sql);
  }

  // ---- what the user's servers offered last (src/users/owner-discovery.ts): a new session's first turn starts from it ----

  discoveryFor(wanted: { server: string; key: string }[]): OwnerDiscoveryRow[] {
    return this.discovery.read(wanted);
  }

  keepDiscovery(rows: OwnerDiscoveryRow[]): void {
    this.discovery.keep(rows);
  }

  // ---- attached files (src/users/file-ledger.ts; their bytes are in R2, src/files/store.ts) ----

  reserveFile(file: FileRecord, quota: number): FileReservation {
    return this.files.reserve(file, quota);
  }

  getFile(id: string): FileRecord | undefined {
    return this.files.get(id);
  }

  removeFile(id: string): FileRecord | undefined {
    return this.files.remove(id);
  }

  /** Bytes of the user's files (their quota's use). */
  filesUsed(): number {
    return this.files.used();
  }

  /** Forgets a session's files (all files when no session is named); their ids, whose bytes the caller deletes. */
  takeFiles(session?: string): string[] {
    return this.files.take(session);
  }

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

  // ---- OAuth sign-in to servers (src/users/oauth-records.ts); called by the Worker and the user's sessions ----

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

  // ---- model providers of the user's own (src/users/user-providers.ts): keys included, for the Worker only ----

  listModelProviders(): StoredUserProvider[] {
    return this.providers.list();
  }

  getModelProvider(id: string): StoredUserProvider | undefined {
    return this.providers.get(id);
  }

  putModelProvider(provider: StoredUserProvider, create: boolean): ReturnType<ModelProviderStore["put"]> {
    return this.providers.put(provider, create);
  }

  deleteModelProvider(id: string): boolean {
    return this.providers.delete(id);
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
  beginTurn(limits: SpendLimits, known?: string, usage = 0, hold?: TokenHold, now = Date.now()): { decision: SpendDecision; servers: ServersSnapshot } {
    // The session's tokens since its last call, counted before its budget is checked (src/session/pending-usage.ts);
    // its previous turn's hold ends with them.
    if (usage > 0 || hold?.release) this.spend.addUsage(usage, hold?.release, now);
    return { decision: this.spend.admit("turn", limits, now, hold), servers: this.serversSnapshot(known) };
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
    const titled = this.sql
      .exec<{ title: string | null }>(
        "UPDATE sessions SET last_activity = ?, title = COALESCE(title, ?) WHERE id = ? AND title IS NULL RETURNING title",
        now,
        title,
        id,
      )
      .toArray()[0];
    if (titled) this.search.setTitle(id, titled.title);
    else this.sql.exec("UPDATE sessions SET last_activity = ? WHERE id = ?", now, id);
  }

  /** A title the user chose; false when the session is not in their list. */
  renameSession(id: string, title: string): boolean {
    const renamed = this.sql
      .exec<{ title: string }>("UPDATE sessions SET title = ? WHERE id = ? RETURNING title", title.slice(0, TITLE_CHARS), id)
      .toArray()[0];
    if (renamed) this.search.setTitle(id, renamed.title);
    return renamed !== undefined;
  }

  /** Pins or unpins a listed session; false when it is not in the list. */
  pinSession(id: string, pinned: boolean): boolean {
    return this.sql.exec("UPDATE sessions SET pinned = ? WHERE id = ? RETURNING id", pinned ? 1 : 0, id).toArray().length > 0;
  }

  // ---- search over the user's sessions (src/users/session-search.ts), fed by the sessions ----

  /** A listed session's new messages; a session not (or no longer) in the list is not indexed. */
  indexMessages(id: string, messages: IndexedMessage[]): void {
    if (this.sql.exec("SELECT 1 FROM sessions WHERE id = ?", id).toArray().length === 0) return;
    this.search.addMessages(id, messages);
  }

  /** The session's history was cleared: its messages leave the index, its title stays. */
  unindexMessages(id: string): void {
    this.search.forget(id, false);
  }

  searchSessions(query: string): SearchResult[] {
    return this.search.search(query);
  }

  // ---- shared links (src/users/share-list.ts, src/share/) ----

  /** The title a listed session has (for a shared snapshot); undefined when it is not in the list. */
  sessionTitle(id: string): { title: string | null } | undefined {
    return this.sql.exec<{ title: string | null }>("SELECT title FROM sessions WHERE id = ?", id).toArray()[0];
  }

  addShare(share: ShareSummary): void {
    this.shares.add(share);
  }

  hasShare(id: string): boolean {
    return this.shares.has(id);
  }

  listShares(sessionId?: string): ShareSummary[] {
    return this.shares.list(sessionId);
  }

  /** Revokes one of the user's links: false when it is not theirs. */
  async revokeShare(id: string): Promise<boolean> {
    if (!this.shares.take(id)) return false;
    await this.emptyShares([id]);
    return true;
  }

  /** Snapshots of revoked links are emptied; the list already says they are dead, so a failure here leaves nothing readable. */
  private async emptyShares(ids: string[]): Promise<void> {
    const env = this.env as Pick<Env, "SHARED_CONVERSATION">;
    await Promise.all(
      ids.map((id) =>
        sharedConversation(env, id)
          .revoke()
          .catch(() => undefined),
      ),
    );
  }

  /** Deleting the account's data: runtime servers, what they offered, own model providers, page logins and paired machines (revoked at once); OAuth records are taken by the caller, to revoke. */
  forgetEverything(): { oauth: OAuthRecord[] } {
    const oauth = this.oauth.signedInServers().flatMap((server) => this.oauthTake(server) ?? []);
    this.sql.exec("DELETE FROM servers");
    this.search.clear();
    this.ctx.waitUntil(this.emptyShares(this.shares.takeAll()));
    this.providers.clear();
    this.discovery.clear();
    this.versionCache = undefined;
    this.logins.endAll();
    for (const machine of this.relay.views()) this.relay.revoke(machine.id);
    this.machineViews = undefined;
    return { oauth };
  }

  /** A deleted (or expired) session leaves the list, the search index, and every link that shared it. */
  async removeSession(id: string): Promise<void> {
    this.sql.exec("DELETE FROM sessions WHERE id = ?", id);
    this.search.forget(id, true);
    await this.emptyShares(this.shares.takeAll(id));
  }

  listSessions(): SessionSummary[] {
    return this.sql
      .exec<{ id: string; title: string | null; last_activity: number; pinned: number }>(
        "SELECT id, title, last_activity, pinned FROM sessions ORDER BY pinned DESC, last_activity DESC, created_at DESC",
      )
      .toArray()
      .map((row) => SessionSummarySchema.parse({ id: row.id, title: row.title, lastActivity: row.last_activity, pinned: row.pinned === 1 }));
  }

  /** Counts one turn or direct call against the user's rate, and for turns checks the daily token budget. */
  admit(kind: SpendKind, limits: SpendLimits, now = Date.now(), hold?: TokenHold): SpendDecision {
    return this.spend.admit(kind, limits, now, hold);
  }

  /** A sampling answer's worst case, held before the model is asked; the refusal when the budget has no room. */
  holdSampling(id: string, tokens: number, dailyTokens: number, now = Date.now()): string | undefined {
    return this.spend.holdSampling(id, tokens, dailyTokens, now);
  }

  /** `release`: the hold these tokens settle (a finished turn's or sampling answer's). */
  addUsage(tokens: number, release?: string, now = Date.now()): number {
    return this.spend.addUsage(tokens, release, now);
  }

  tokensUsed(now = Date.now()): number {
    return this.spend.tokensUsed(now);
  }

  /** The operator's line for this user (/admin): how many sessions, the newest activity, and the model tokens spent today (UTC). */
  operatorSummary(now = Date.now()): AccountSummary {
    const row = this.sql.exec<{ n: number; last: number | null }>("SELECT COUNT(*) AS n, MAX(last_activity) AS last FROM sessions").one();
    return { sessions: row.n, lastActivity: row.last, tokensToday: this.spend.tokensUsed(now), machines: this.machines.list().length };
  }
}

export interface AccountSummary {
  sessions: number;
  lastActivity: number | null;
  tokensToday: number;
  machines: number;
}
