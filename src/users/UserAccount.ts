// One Durable Object per user (named by the identity's id): the user's list of
// chat sessions, their spend (src/users/spend-ledger.ts) counted across all their sessions, the remote MCP servers they added at runtime, and their
// paired machines, whose bridges' sockets this object holds (src/machines/relay.ts),
// all kept across restarts in SQLite.
import { DurableObject } from "cloudflare:workers";
import type { StoredUserServer } from "./user-servers";
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
import { ShareList, type ShareCaps, type ShareDecision, type ShareSummary } from "./share-list";
import type { BucketLimits } from "./token-bucket";
import { sharedConversation } from "../share/share-object";
import { OwnerDiscovery, type OwnerDiscoveryRow } from "./owner-discovery";
import { SessionList, type SessionSummary } from "./session-list";
import { RuntimeServerStore } from "./server-store";
import { ERASING_DECISION, EraseState } from "./erase-state";
import { TaskSlots, type HeldTask, type SlotDecision, type TaskSlot } from "./task-slots";
import { ConnectedApps, type AppConnection, type ConnectedApp } from "./connected-apps";
import { AppWatchers, watchingApp, type OwnerChange } from "./app-watchers";
import { GatewayQuestions, type OpenQuestion, type QuestionAnswer, type QuestionAsked } from "./gateway-questions";
import type { Env } from "../config/env";
import { type DeviceView, type NewDevice, PushDevices } from "./push-devices";
import { type DeliverySummary, deliverNotice } from "./push-delivery";
import type { PushDetail, PushNotice } from "../push/notice";
import type { VapidKeys } from "../push/vapid";

/** The user's runtime servers and machines, as a session reads them: the lists only when `version` changed. */
export type ServersSnapshot = { version: string; servers?: StoredUserServer[]; machines?: MachineView[] };

export { SessionSummarySchema, type SessionSummary } from "./session-list";

export class UserAccount extends DurableObject<unknown> {
  private readonly sql: SqlStorage;
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
  private readonly sessions: SessionList;
  private readonly servers: RuntimeServerStore;
  /**
   * Delete my data's mark, write leases and generation (src/users/erase-state.ts). The Worker's write
   * requests hold leases (the erase waits for them, then deletes what they wrote); what a session writes
   * on its own (a turn's admission, its chat's listing, search entries, discovery, sign-ins) checks the mark here.
   */
  private readonly erase: EraseState;
  private readonly taskSlots: TaskSlots;
  private readonly apps: ConnectedApps;
  /** Apps with a client listening for list_changed (src/users/app-watchers.ts). */
  private readonly watchers: AppWatchers;
  private readonly questions: GatewayQuestions;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sessions = new SessionList(this.sql);
    this.search = new SessionSearch(this.sql);
    this.shares = new ShareList(this.sql);
    this.servers = new RuntimeServerStore(this.sql);
    this.oauth = new OAuthRecords(this.sql);
    this.logins = new LoginStore(this.sql);
    this.machines = new MachineStore(this.sql);
    this.spend = new SpendLedger(this.sql, ctx.storage);
    this.providers = new ModelProviderStore(this.sql);
    this.relay = new MachineRelay(ctx, this.machines, () => {
      this.machineViews = undefined;
      this.ownerChanged();
    });
    this.files = new FileLedger(this.sql);
    this.discovery = new OwnerDiscovery(this.sql);
    this.erase = new EraseState(this.sql);
    this.taskSlots = new TaskSlots(this.sql);
    this.apps = new ConnectedApps(this.sql);
    this.watchers = new AppWatchers(this.sql, (appId) => watchingApp(env as Pick<Env, "GATEWAY_APP">, appId));
    this.questions = new GatewayQuestions(this.sql);
  }

  // ---- push notifications (src/users/push-devices.ts, push-delivery.ts, src/http/push.ts) ----

  private pushStore?: PushDevices;
  /** Made on first use (its tables too). */
  private get pushDevices(): PushDevices {
    this.pushStore ??= new PushDevices(this.sql);
    return this.pushStore;
  }

  addPushDevice(device: NewDevice, cap: number, now = Date.now()): Promise<{ ok: true; id: string } | { ok: false; limit: number }> {
    this.erase.refuse();
    return this.pushDevices.add(device, cap, now);
  }

  listPushDevices(): { detail: PushDetail; devices: DeviceView[] } {
    return { detail: this.pushDevices.detail(), devices: this.pushDevices.list() };
  }

  removePushDevice(id: string): boolean {
    return this.pushDevices.remove(id);
  }

  setPushDetail(detail: PushDetail): void {
    this.erase.refuse();
    this.pushDevices.setDetail(detail);
  }

  /** Pushes `notice` to the person's devices (or the one named), with the chat's title added here. */
  pushNotice(notice: PushNotice, vapid: VapidKeys, only?: string, now = Date.now()): Promise<DeliverySummary> {
    return deliverNotice(this.pushDevices, notice, this.sessions.title(notice.session)?.title, vapid, now, only);
  }

  // ---- apps connected to /mcp (src/users/connected-apps.ts, src/http/connect.ts, src/http/connected-apps.ts) ----

  connectApp(app: AppConnection, now = Date.now()): { ok: true; gen: number } | { ok: false } {
    this.erase.refuse();
    return this.apps.connect(app, now);
  }

  listApps(): ConnectedApp[] {
    return this.apps.list();
  }

  getApp(appId: string): ConnectedApp | undefined {
    return this.apps.get(appId);
  }

  setAppSampling(appId: string, sampling: boolean): ConnectedApp | undefined {
    return this.apps.setSampling(appId, sampling);
  }

  /** The app's object served a call (GatewayApp, at most once a minute): Connected apps shows it as last use. */
  appUsed(appId: string, at = Date.now()): void {
    this.apps.used(appId, at);
  }

  /** An app's clients listen for list_changed until `until` (0: no longer); renewed by the app while a stream is open. */
  watchApp(appId: string, until: number, now = Date.now()): void {
    this.watchers.watch(appId, until, now);
  }

  /** The person's servers changed: every app with a client listening hears it (none is woken otherwise). */
  private ownerChanged(change: OwnerChange = {}): void {
    this.ctx.waitUntil(this.watchers.changed(change, Date.now()));
  }

  removeApp(appId: string): ConnectedApp | undefined {
    this.questions.dropApp(appId);
    return this.apps.remove(appId);
  }

  // ---- approvals an app's held call waits for (src/users/gateway-questions.ts, src/gateway/held-approval.ts) ----

  gatewayQuestionAsk(asked: QuestionAsked, now = Date.now()): boolean {
    return this.apps.get(asked.appId) !== undefined && this.questions.ask(asked, now);
  }

  gatewayQuestionsOpen(now = Date.now()): OpenQuestion[] {
    return this.questions.open(now);
  }

  gatewayQuestionAnswer(appId: string, id: string, now = Date.now()): QuestionAnswer {
    return this.questions.answer(appId, id, now);
  }

  /** What the page's bootstrap says of Connected apps: poll for questions only when there are apps. */
  appsSummary(now = Date.now()): { connected: number; questions: number } {
    return { connected: this.apps.list().length, questions: this.questions.openCount(now) };
  }

  // ---- running MCP tasks, capped per user across sessions (src/users/task-slots.ts) ----

  reserveTaskSlot(slot: TaskSlot, max: number, now = Date.now()): SlotDecision {
    return this.taskSlots.reserve(slot, max, now);
  }

  releaseTaskSlots(session: string, callIds: string[]): void {
    this.taskSlots.release(session, callIds);
  }

  /** A session's poll: the tasks it still holds (their slots renewed, its others dropped). */
  renewTaskSlots(session: string, held: HeldTask[], now = Date.now()): void {
    this.taskSlots.renew(session, held, now);
  }

  runningTasks(now = Date.now()): number {
    return this.taskSlots.running(now);
  }

  // ---- Delete my data is final (src/users/erase-state.ts, src/http/my-data.ts) ----

  /** A write request of the Worker begins (src/http/account-writes.ts): its lease, or undefined while an erase runs. */
  openWrite(now = Date.now()): string | undefined {
    return this.erase.openLease(now);
  }

  closeWrite(lease: string): void {
    this.erase.closeLease(lease);
  }

  /** Marks the erase, then waits for the write requests admitted before it; the token `endErase` takes. */
  async beginErase(): Promise<number> {
    const token = this.erase.begin();
    await this.erase.leasesSettled();
    return token;
  }

  endErase(token: number): void {
    this.erase.end(token);
  }

  // ---- what the user's servers offered last (src/users/owner-discovery.ts): a new session's first turn starts from it ----

  discoveryFor(wanted: { server: string; key: string }[]): OwnerDiscoveryRow[] {
    return this.discovery.read(wanted);
  }

  keepDiscovery(rows: OwnerDiscoveryRow[]): void {
    if (this.erase.erasing) return;
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
    this.erase.refuse();
    const signedIn = this.oauth.load(server)?.tokens !== undefined;
    this.oauth.save(server, patch);
    // A sign-in (not a refresh of tokens already held) gives apps the server's tools.
    if (!signedIn && patch.tokens) this.ownerChanged({ oauth: server });
  }

  oauthSignedIn(): string[] {
    return this.oauth.signedInServers();
  }

  oauthForget(server: string): void {
    const signedIn = this.oauth.load(server)?.tokens !== undefined;
    this.oauth.forget(server);
    if (signedIn) this.ownerChanged({ oauth: server });
  }

  /** Signing out (or removing the server): the record, forgotten here when it held tokens, for the caller to revoke. */
  oauthTake(server: string): OAuthRecord | undefined {
    const record = this.oauth.load(server);
    if (record?.tokens) {
      this.oauth.forget(server);
      this.ownerChanged({ oauth: server });
    }
    return record;
  }

  oauthStartSignIn(state: string, server: string, session: string): void {
    this.erase.refuse();
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
   * brings the tokens the session's earlier turns spent (`usage`).
   */
  beginTurn(
    limits: SpendLimits,
    known?: string,
    usage = 0,
    hold?: TokenHold,
    now = Date.now(),
  ): { decision: SpendDecision; servers: ServersSnapshot; generation: number } {
    // The session's tokens since its last call, counted before its budget is checked (src/session/pending-usage.ts);
    // its previous turn's hold ends with them.
    if (usage > 0 || hold?.release) this.spend.addUsage(usage, hold?.release, now);
    // The generation rides along (no extra call): the turn's later writes carry it (touchSession).
    const decision = this.erase.erasing ? ERASING_DECISION : this.spend.admit("turn", limits, now, hold);
    return { decision, servers: this.serversSnapshot(known), generation: this.erase.generation };
  }

  /** Changes whenever the list or an entry changes: sessions compare it to reconcile. */
  serversVersion(): string {
    return this.servers.version();
  }

  // ---- the session list (src/users/session-list.ts) ----

  /** A new session claimed; not listed while an erase runs (a socket opened on a new id then: it stays empty, its turns refused). */
  addSession(id: string, now = Date.now()): void {
    if (this.erase.erasing) return;
    this.sessions.add(id, now);
  }

  hasRoomForSession(id: string, max: number): boolean {
    return this.sessions.hasRoom(id, max);
  }

  reserveSession(id: string, max: number, now = Date.now()): boolean {
    return this.sessions.reserve(id, max, now);
  }

  /**
   * Marks activity; the first message of a session becomes its title (searchable at once).
   * `generation`: the one the turn was admitted under; a turn that raced an erase does not list its chat again.
   */
  touchSession(id: string, firstMessage: string | undefined, now = Date.now(), generation?: number): void {
    if (!this.erase.current(generation)) return;
    const titled = this.sessions.touch(id, firstMessage, now);
    if (titled) this.search.setTitle(id, titled.title);
  }

  /** A title the user chose; false when the session is not in their list. */
  renameSession(id: string, title: string): boolean {
    const renamed = this.sessions.rename(id, title);
    if (renamed !== undefined) this.search.setTitle(id, renamed);
    return renamed !== undefined;
  }

  pinSession(id: string, pinned: boolean): boolean {
    return this.sessions.pin(id, pinned);
  }

  // ---- search over the user's sessions (src/users/session-search.ts), fed by the sessions ----

  /** A listed session's new messages; a session not (or no longer) in the list is not indexed. */
  indexMessages(id: string, messages: IndexedMessage[]): void {
    if (this.erase.erasing || !this.sessions.has(id)) return;
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
    return this.sessions.title(id);
  }

  /**
   * Lists a new link if the user is within the caps and their rate: checked and listed in one
   * call of this object, which runs one at a time, so parallel shares cannot pass a cap.
   */
  addShare(share: ShareSummary, caps: ShareCaps, rate: BucketLimits, now = Date.now()): ShareDecision {
    const refusal = this.shares.refusal(share.sessionId, caps);
    if (refusal) return { ok: false, code: "too_many_shares", message: refusal };
    const spend = this.spend.admit("share", rate, now);
    if (!spend.ok) return spend;
    this.shares.add(share);
    return { ok: true };
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

  /** Deleting the account's data: runtime servers, what they offered, own model providers, page logins and paired machines (revoked at once); OAuth records and connected apps are taken by the caller, to revoke. */
  forgetEverything(): { oauth: OAuthRecord[]; apps: ConnectedApp[] } {
    const oauth = this.oauth.signedInServers().flatMap((server) => this.oauthTake(server) ?? []);
    this.oauth.forgetAll();
    this.servers.clear();
    this.search.clear();
    this.ctx.waitUntil(this.emptyShares(this.shares.takeAll()));
    this.providers.clear();
    this.discovery.clear();
    this.pushDevices.clear();
    this.logins.endAll();
    for (const machine of this.relay.views()) this.relay.revoke(machine.id);
    this.machineViews = undefined;
    this.questions.dropAll();
    return { oauth, apps: this.apps.takeAll() };
  }

  /** A deleted (or expired) session leaves the list, the search index, and every link that shared it. */
  async removeSession(id: string): Promise<void> {
    this.sessions.remove(id);
    this.taskSlots.releaseSession(id);
    this.search.forget(id, true);
    await this.emptyShares(this.shares.takeAll(id));
  }

  listSessions(): SessionSummary[] {
    return this.sessions.list();
  }

  /** Counts one turn or direct call against the user's rate, and for turns checks the daily token budget. */
  admit(kind: SpendKind, limits: SpendLimits, now = Date.now(), hold?: TokenHold): SpendDecision {
    if (this.erase.erasing) return ERASING_DECISION;
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
    return { ...this.sessions.summary(), tokensToday: this.spend.tokensUsed(now), machines: this.machines.list().length };
  }
}

export interface AccountSummary {
  sessions: number;
  lastActivity: number | null;
  tokensToday: number;
  machines: number;
}
