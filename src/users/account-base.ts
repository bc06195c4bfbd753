// The UserAccount Durable Object's ground floor: its SQLite stores, built once per
// instance, and the few helpers several of its concerns share. The RPC methods sit on
// the classes above it (UserAccount.ts lists where each concern lives); all fields are
// declared here only, since a field redeclared in a subclass would be reset after this
// constructor ran.
import { DurableObject } from "cloudflare:workers";
import { ModelProviderStore } from "./user-providers";
import { OAuthRecords } from "./oauth-records";
import { LoginStore } from "./logins";
import { SpendLedger } from "./spend-ledger";
import { MachineStore, type MachineView } from "../machines/machine-store";
import { MachineRelay } from "../machines/relay";
import { FileLedger } from "./file-ledger";
import { SessionSearch } from "./session-search";
import { ShareList } from "./share-list";
import { sharedConversation } from "../share/share-object";
import { OwnerDiscovery } from "./owner-discovery";
import { SessionList } from "./session-list";
import { RuntimeServerStore } from "./server-store";
import { EraseState } from "./erase-state";
import { TaskSlots } from "./task-slots";
import { ConnectedApps } from "./connected-apps";
import { AppWatchers, watchingApp, type OwnerChange } from "./app-watchers";
import { GatewayQuestions } from "./gateway-questions";
import type { Env } from "../config/env";
import { PushCap } from "./push-cap";
import { PushDevices } from "./push-devices";
import { ScheduleSlots } from "./schedule-slots";
import { AccountRuleStore } from "./argument-rules-store";
import { SharedChats } from "./shared-chats";
import { PresetStore } from "./presets";

export class AccountBase extends DurableObject<unknown> {
  protected readonly sql: SqlStorage;
  protected readonly oauth: OAuthRecords;
  protected readonly logins: LoginStore;
  protected readonly machines: MachineStore;
  protected readonly spend: SpendLedger;
  protected readonly providers: ModelProviderStore;
  /** The machines as sessions see them, with their part of the servers version; dropped whenever one changes (relay.ts). */
  protected machineViews?: { views: MachineView[]; version: string };
  protected readonly relay: MachineRelay;
  protected readonly files: FileLedger;
  protected readonly search: SessionSearch;
  protected readonly shares: ShareList;
  protected readonly discovery: OwnerDiscovery;
  protected readonly sessions: SessionList;
  protected readonly servers: RuntimeServerStore;
  /**
   * Delete my data's mark, write leases and generation (src/users/erase-state.ts). The Worker's write
   * requests hold leases (the erase waits for them, then deletes what they wrote); what a session writes
   * on its own (a turn's admission, its chat's listing, search entries, discovery, sign-ins) checks the mark here.
   */
  protected readonly erase: EraseState;
  protected readonly taskSlots: TaskSlots;
  protected readonly apps: ConnectedApps;
  /** Apps with a client listening for list_changed (src/users/app-watchers.ts). */
  protected readonly watchers: AppWatchers;
  protected readonly questions: GatewayQuestions;

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

  private pushStore?: PushDevices;
  /** Made on first use (its tables too). */
  protected get pushDevices(): PushDevices {
    this.pushStore ??= new PushDevices(this.sql);
    return this.pushStore;
  }

  private pushCapStore?: PushCap;
  /** PUSH_PER_HOUR: this hour's pushes and those dropped past it; made on first use (its tables too). */
  protected get pushCap(): PushCap {
    this.pushCapStore ??= new PushCap(this.sql);
    return this.pushCapStore;
  }

  private scheduleStore?: ScheduleSlots;
  /** The person's schedules across their chats (SCHEDULES_PER_USER); made on first use (its table too). */
  protected get scheduleSlots(): ScheduleSlots {
    this.scheduleStore ??= new ScheduleSlots(this.sql);
    return this.scheduleStore;
  }

  private rulesStore?: AccountRuleStore;
  /** The person's "all my chats" argument rules; made on first use (its tables too). */
  protected get argumentRules(): AccountRuleStore {
    this.rulesStore ??= new AccountRuleStore(this.sql);
    return this.rulesStore;
  }

  private sharedStore?: SharedChats;
  /** Chats other people shared with this person (src/users/shared-chats.ts); made on first use. */
  protected get sharedChats(): SharedChats {
    this.sharedStore ??= new SharedChats(this.sql);
    return this.sharedStore;
  }

  private presetStore?: PresetStore;
  /** The person's instructions and presets (src/users/presets.ts); made on first use (its tables too). */
  protected get presets(): PresetStore {
    this.presetStore ??= new PresetStore(this.sql);
    return this.presetStore;
  }

  /** The person's servers changed: every app with a client listening hears it (none is woken otherwise). */
  protected ownerChanged(change: OwnerChange = {}): void {
    this.ctx.waitUntil(this.watchers.changed(change, Date.now()));
  }

  /** Snapshots of revoked links are emptied; the list already says they are dead, so a failure here leaves nothing readable. */
  protected async emptyShares(ids: string[]): Promise<void> {
    const env = this.env as Pick<Env, "SHARED_CONVERSATION">;
    await Promise.all(
      ids.map((id) =>
        sharedConversation(env, id)
          .revoke()
          .catch(() => undefined),
      ),
    );
  }
}
