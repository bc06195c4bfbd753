// What a session's servers offered, kept for the next cold start (discovery-cache.ts,
// in the session's SQLite) and shared with the owner's other sessions through their
// account: a new session seeds from those rows once, and a row the account already
// has is not sent again.
import type { McpHost } from "../../mcp/host";
import type { EraVerdict } from "../../mcp/protocol-era";
import type { SettingsStore } from "../../approval/approvals";
import type { McpConfig } from "../../shared/mcp-config/config";
import { errorMessage, type Logger } from "../../shared/logger";
import { DiscoveryCache, type Discovery } from "./discovery-cache";
import type { OwnerDiscoveryPort } from "./deps";
import { SessionLists } from "./kept-lists";

export class KeptDiscovery {
  private cache: DiscoveryCache;
  /** The owner's rows read once for a session without its own (a new one): see seedFromOwner. */
  private ownerSeed?: Promise<void>;
  /** Each server's row as the owner's account has it (read or told), so an unchanged one is not sent again. */
  private readonly ownerRows = new Map<string, string>();
  /** Lists with a ttl, read here or kept in the rows: the host's ListMemory (kept-lists.ts). */
  readonly lists = new SessionLists((server, kind) => this.cache.list(server, kind));

  constructor(
    private readonly store: SettingsStore,
    config: McpConfig,
    private readonly owner: OwnerDiscoveryPort | undefined,
    private readonly logger: Logger | undefined,
  ) {
    this.cache = this.cacheFor(config);
  }

  /** The servers changed: rows are keyed by each server's configuration from now on. */
  reconfigure(config: McpConfig): void {
    this.cache = this.cacheFor(config);
  }

  private cacheFor(config: McpConfig): DiscoveryCache {
    return new DiscoveryCache(this.store, config, (server, error, chars) =>
      this.logger?.warn("discovery not kept", { server, chars, error: errorMessage(error) }),
    );
  }

  /** Last time's tools and guides for the servers in use, when every one of them is known. */
  get(enabled: (server: string) => boolean): Discovery | undefined {
    return this.cache.get(enabled);
  }

  era(server: string): EraVerdict | undefined {
    return this.cache.era(server);
  }

  /** Keeps what the host's ready servers offer now; tells the owner's account of rows it lacks. */
  async remember(host: McpHost): Promise<void> {
    try {
      const connected = host
        .servers()
        .filter((s) => s.state === "ready")
        .map((s) => s.name);
      const now = Date.now();
      const kept = this.cache.save(
        host.tools(),
        await host.guides(),
        connected,
        (server) => host.eraOf(server),
        (server) => this.lists.of(server, now),
      );
      const news = kept.filter((k) => this.ownerRows.get(k.server) !== k.row);
      for (const k of news) this.ownerRows.set(k.server, k.row);
      if (news.length > 0) await this.owner?.keep(news);
    } catch {
      // A guide that cannot be read now (or the account) is retried at the next change; nothing is lost.
    }
  }

  /**
   * A session with no discovery of its own for the servers it uses (a new one) takes
   * what the owner's other sessions found, once: its first turn then need not wait for
   * the connections. A read that fails leaves it to wait, as before.
   */
  seedFromOwner(enabled: (server: string) => boolean): Promise<void> {
    this.ownerSeed ??= (async () => {
      const missing = this.cache.missing(enabled);
      if (!this.owner || missing.length === 0) return;
      const rows = await this.owner.read(missing).catch(() => []);
      for (const taken of this.cache.seed(rows)) this.ownerRows.set(taken.server, taken.row);
    })();
    return this.ownerSeed;
  }
}
