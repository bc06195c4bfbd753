// Change notifications for one server connection, in either MCP era. On 2025 they arrive
// unsolicited on the session's GET stream, and a resource is watched with
// resources/subscribe. On 2026-07-28 there is no session and no GET stream: the host opens
// a `subscriptions/listen` stream (the SDK's `client.listen`) naming the lists the server
// says can change and the resources a person attached, and the notifications it carries
// reach the same handlers (server-client.ts listenTo). A new set of resources opens a new
// stream before the old one closes (no gap). A stream that drops is opened again after a
// backoff, a bounded number of times in a row, and the lists and watched resources are read
// again then, since what changed while no stream was open was never told.
import { ProtocolError, type Client, type McpSubscription, type SubscriptionFilter } from "@modelcontextprotocol/client";
import { backoffDelay, type BackoffPolicy } from "../shared/backoff";
import { errorMessage, type Logger } from "../shared/logger";
import type { ListKind } from "./discovery";
import { listenTo } from "./server-client";
import { isUnreachable } from "./http-failure";

/** Drops in a row (each reopened after a backoff) before the feed gives up until the next connect. */
export const MAX_LISTEN_TRIES = 6;
/** A stream that stayed open this long was healthy: its drop starts the count again. */
const STABLE_MS = 30_000;

export interface ChangeFeedDeps {
  server: string;
  logger: Logger;
  now: () => number;
  reconnect: Pick<BackoffPolicy, "initialMs" | "maxMs">;
  /** The connection closed (its current client). */
  closed: () => void;
  /** A list may have changed: read it again (and tell whoever watches). */
  listChanged: (client: Client, kind: ListKind) => void;
  resourceUpdated: (uri: string) => void;
}

/** One client's listen stream and what it was opened with. */
interface Live {
  client: Client;
  current: () => boolean;
  timeoutMs?: number;
  subscription?: McpSubscription;
  key?: string;
  openedAt: number;
  drops: number;
  timer?: ReturnType<typeof setTimeout>;
  /** Opens run one after another, so a burst of subscribes opens one stream. */
  chain: Promise<void>;
}

export class ChangeFeed {
  /** Resources watched for the host (attached by a person), kept across reconnects. */
  private readonly uris = new Set<string>();
  private live?: Live;

  constructor(private readonly deps: ChangeFeedDeps) {}

  /**
   * Wires a newly connected client's notifications and, on a 2026 connection, opens its
   * listen stream; resolves once the server acknowledged it, refused it (an answer: logged, and
   * the server connects without change notifications) or was slow (retried). A server that
   * cannot be reached at all rejects, and so fails the connect: with its era remembered and
   * its lists kept with a ttl, a connect sends nothing else, and a server that is down would
   * show ready.
   */
  attach(client: Client, current: () => boolean, timeoutMs?: number): Promise<void> {
    this.detach();
    const { deps } = this;
    listenTo(client, {
      server: deps.server,
      logger: deps.logger,
      current,
      closed: deps.closed,
      listChanged: (kind) => deps.listChanged(client, kind),
      resourceUpdated: deps.resourceUpdated,
    });
    if (client.getProtocolEra() !== "modern") return Promise.resolve();
    const live: Live = { client, current, timeoutMs, openedAt: deps.now(), drops: 0, chain: Promise.resolve() };
    this.live = live;
    return this.reopen(live).catch((error: unknown) => {
      if (isUnreachable(error)) {
        this.detach();
        throw error;
      }
      this.dropped(live, undefined, error);
    });
  }

  /** The client is going away: its stream is cancelled (the server hears it), no reopen is pending. */
  detach(): void {
    const live = this.live;
    this.live = undefined;
    if (!live) return;
    clearTimeout(live.timer);
    void live.subscription?.close();
  }

  /** Whether a 2026 listen stream is open now (the server acknowledged it). */
  get listening(): boolean {
    return this.live?.subscription !== undefined;
  }

  /** Watches `uri` on `client`: resources/subscribe on 2025, the listen stream's filter on 2026. */
  async subscribe(client: Client, uri: string, timeoutMs?: number): Promise<void> {
    const live = this.liveFor(client);
    if (!live) {
      await client.subscribeResource({ uri }, { timeout: timeoutMs });
      this.uris.add(uri);
      return;
    }
    this.uris.add(uri);
    await this.reopen(live);
  }

  async unsubscribe(client: Client, uri: string, timeoutMs?: number): Promise<void> {
    this.uris.delete(uri);
    const live = this.liveFor(client);
    if (!live) await client.unsubscribeResource({ uri }, { timeout: timeoutMs });
    else await this.reopen(live);
  }

  private liveFor(client: Client): Live | undefined {
    return this.live?.client === client ? this.live : undefined;
  }

  /** What to ask for: the lists the server says can change, and the watched resources where it allows subscriptions. */
  private filter(client: Client): SubscriptionFilter | undefined {
    const caps = client.getServerCapabilities() ?? {};
    const filter: SubscriptionFilter = {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(caps.resources?.subscribe && this.uris.size > 0 ? { resourceSubscriptions: [...this.uris].sort() } : {}),
    };
    return Object.keys(filter).length > 0 ? filter : undefined;
  }

  /** Opens the stream the filter asks for now, after any open still running; nothing when it is already open. */
  private reopen(live: Live): Promise<void> {
    const next = live.chain.then(() => this.open(live));
    live.chain = next.catch(() => undefined);
    return next;
  }

  private async open(live: Live): Promise<void> {
    if (this.live !== live || !live.current()) return;
    const filter = this.filter(live.client);
    const key = JSON.stringify(filter ?? null);
    if (key === live.key && live.subscription) return;
    const previous = live.subscription;
    const subscription = filter ? await live.client.listen(filter, { timeout: live.timeoutMs }) : undefined;
    if (this.live !== live || !live.current()) {
      void subscription?.close();
      return;
    }
    Object.assign(live, { subscription, key, openedAt: this.deps.now() });
    // The new stream is acknowledged before the old one is cancelled: a change between the two is heard (maybe twice).
    void previous?.close();
    if (subscription) void subscription.closed.then((cause) => cause !== "local" && this.dropped(live, subscription, new Error(`stream ended (${cause})`)));
  }

  /** The stream ended without us closing it, or could not be opened: open it again after a backoff, a bounded number of times. */
  private dropped(live: Live, subscription: McpSubscription | undefined, error: unknown): void {
    if (this.live !== live || !live.current() || live.subscription !== subscription) return;
    const { deps } = this;
    live.subscription = undefined;
    // A server that refuses subscriptions/listen (an error answer) will refuse it again.
    if (error instanceof ProtocolError) {
      deps.logger.warn("server refused subscriptions/listen: no change notifications", { server: deps.server, error: errorMessage(error) });
      return;
    }
    if (subscription && deps.now() - live.openedAt >= STABLE_MS) live.drops = 0;
    if (live.drops >= MAX_LISTEN_TRIES) {
      deps.logger.warn("subscriptions/listen gave up until the next connect", { server: deps.server, tries: live.drops, error: errorMessage(error) });
      return;
    }
    const delay = backoffDelay(live.drops++, deps.reconnect);
    deps.logger.info("subscriptions/listen dropped: opening it again", { server: deps.server, delayMs: delay, error: errorMessage(error) });
    live.timer = setTimeout(() => {
      this.reopen(live).then(
        () => this.caughtUp(live),
        (failure: unknown) => this.dropped(live, undefined, failure),
      );
    }, delay);
  }

  /** A reopened stream: what changed while none was open is read again. */
  private caughtUp(live: Live): void {
    if (this.live !== live || !live.subscription) return;
    const honored = live.subscription.honoredFilter;
    if (honored.toolsListChanged) this.deps.listChanged(live.client, "tools");
    if (honored.promptsListChanged) this.deps.listChanged(live.client, "prompts");
    if (honored.resourcesListChanged) this.deps.listChanged(live.client, "resources");
    for (const uri of honored.resourceSubscriptions ?? []) this.deps.resourceUpdated(uri);
  }
}
