// What a session's servers offered last time (tools, as the model sees them, and
// each server's guide), kept in the session's storage, one row per server under a
// key derived from that server's configuration. A session that wakes cold can then
// make its first model call at once, while its connections open in parallel; a tool
// call waits for its server. A changed entry (a deploy, another mcp.json) misses for
// that server alone. One row per server keeps each far under a row's 2 MB limit (one
// row for all servers would pass it at a few thousand tools); a write that fails
// anyway is reported, and that server is simply discovered again next time.
import { z } from "zod";
import type { SettingsStore } from "../../approval/approvals";
import { ToolViewSchema, type ToolView } from "../../mcp/capabilities";
import { EraVerdictSchema, type EraVerdict } from "../../mcp/protocol-era";
import { KeptListSchema, type KeptList } from "../../mcp/list-ttl";
import type { ListKind } from "../../mcp/discovery";
import type { McpConfig } from "../../shared/mcp-config/config";
import type { ServerGuide } from "../../mcp/guide";

const PREFIX = "discovery:";
/** The row of the single-row cache before per-server rows: dropped when met. */
const OLD_KEY = "discovery";

const GuideSchema = z.object({ server: z.string(), source: z.enum(["prompt", "generated"]), text: z.string() });
const ServerDiscoverySchema = z.object({
  key: z.string(),
  tools: z.array(ToolViewSchema),
  guide: GuideSchema.optional(),
  /** The MCP era the server was found to speak, so the next connect skips the probe (src/mcp/protocol-era.ts). */
  era: EraVerdictSchema.optional(),
  /** Its lists as the server sent them, while a ttl it gave lasts: the next connect need not ask (src/mcp/list-ttl.ts). */
  lists: z.object({ tools: KeptListSchema.optional(), prompts: KeptListSchema.optional(), resources: KeptListSchema.optional() }).optional(),
});
export type KeptLists = NonNullable<z.infer<typeof ServerDiscoverySchema>["lists"]>;
type ServerDiscovery = z.infer<typeof ServerDiscoverySchema>;

export interface Discovery {
  tools: ToolView[];
  guides: ServerGuide[];
}

/** FNV-1a over a server's entry as JSON: a cache key, not a secret (header values only feed the hash). */
export function serverKey(server: McpConfig["servers"][number]): string {
  // v2: guides no longer list tools (guide.ts); a cache from before must not bring them back.
  const text = JSON.stringify(server);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `v2:${hash.toString(16)}:${text.length}`;
}

export class DiscoveryCache {
  private loaded = new Map<string, ServerDiscovery | null>();

  constructor(
    private readonly store: SettingsStore,
    private readonly config: McpConfig,
    /** Told when a server's row could not be written (its size, the storage's reason). */
    private readonly writeFailed: (server: string, error: unknown, chars: number) => void = () => undefined,
  ) {
    if (store.getSetting(OLD_KEY) !== undefined) store.setSetting(OLD_KEY, undefined);
  }

  /** The last discovery of every server `wanted` says, or undefined when any of them has none for its current entry. */
  get(wanted: (server: string) => boolean): Discovery | undefined {
    const out: Discovery = { tools: [], guides: [] };
    for (const server of this.config.servers) {
      if (server.disabled || !wanted(server.name)) continue;
      const found = this.read(server);
      if (!found) return undefined;
      out.tools.push(...found.tools);
      if (found.guide) out.guides.push(found.guide);
    }
    return out;
  }

  /** The servers `wanted` says that have no row for their current entry, with the key a row must have. */
  missing(wanted: (server: string) => boolean): { server: string; key: string }[] {
    return this.config.servers.filter((s) => !s.disabled && wanted(s.name) && !this.read(s)).map((s) => ({ server: s.name, key: serverKey(s) }));
  }

  /**
   * Takes rows another session of the owner kept (src/users/owner-discovery.ts) for
   * servers that have none here; a row that does not parse, or was found with another
   * entry, is left out. The rows taken, as they were given.
   */
  seed(rows: { server: string; key: string; row: string }[]): { server: string; row: string }[] {
    const taken: { server: string; row: string }[] = [];
    for (const { server, row } of rows) {
      const entry = this.config.servers.find((s) => s.name === server);
      if (!entry || this.read(entry)) continue;
      let parsed: ReturnType<typeof ServerDiscoverySchema.safeParse>;
      try {
        parsed = ServerDiscoverySchema.safeParse(JSON.parse(row));
      } catch {
        continue;
      }
      if (!parsed.success || parsed.data.key !== serverKey(entry) || parsed.data.tools.some((t) => t.server !== server)) continue;
      // In memory only: the turn waiting for it should not pay a write; save() stores it once the server answered.
      this.loaded.set(server, parsed.data);
      taken.push({ server, row });
    }
    return taken;
  }

  /** The era `server` was last found to speak with its current entry (undefined: none kept, or the entry changed). */
  era(server: string): EraVerdict | undefined {
    const entry = this.config.servers.find((s) => s.name === server);
    return entry ? this.read(entry)?.era : undefined;
  }

  /** `server`'s list of `kind` kept with its current entry, whether fresh or not. */
  list(server: string, kind: ListKind): KeptList | undefined {
    const entry = this.config.servers.find((s) => s.name === server);
    return entry ? this.read(entry)?.lists?.[kind] : undefined;
  }

  /** Keeps each connected server's tools, guide, era and fresh lists (servers not in `tools` keep their last row); the rows kept, as JSON text. */
  save(
    tools: ToolView[],
    guides: ServerGuide[],
    connected: string[],
    eraOf: (server: string) => EraVerdict | undefined = () => undefined,
    listsOf: (server: string) => KeptLists | undefined = () => undefined,
  ): { server: string; key: string; row: string }[] {
    const kept: { server: string; key: string; row: string }[] = [];
    for (const server of this.config.servers) {
      if (!connected.includes(server.name)) continue;
      const guide = guides.find((g) => g.server === server.name);
      const era = eraOf(server.name);
      const lists = listsOf(server.name);
      const row: ServerDiscovery = {
        key: serverKey(server),
        tools: tools.filter((t) => t.server === server.name),
        ...(guide ? { guide } : {}),
        ...(era ? { era } : {}),
        ...(lists ? { lists } : {}),
      };
      // Made once: stored here, and compared and sent to the owner's account by the session.
      const text = JSON.stringify(row);
      if (this.keep(server.name, row, text)) kept.push({ server: server.name, key: row.key, row: text });
    }
    return kept;
  }

  private keep(server: string, row: ServerDiscovery, text: string): boolean {
    try {
      this.store.setSetting(PREFIX + server, row, text);
      this.loaded.set(server, row);
      return true;
    } catch (error) {
      this.loaded.set(server, null);
      this.writeFailed(server, error, text.length);
      return false;
    }
  }

  private read(server: McpConfig["servers"][number]): ServerDiscovery | undefined {
    if (!this.loaded.has(server.name)) {
      const parsed = ServerDiscoverySchema.safeParse(this.store.getSetting(PREFIX + server.name));
      this.loaded.set(server.name, parsed.success && parsed.data.key === serverKey(server) ? parsed.data : null);
    }
    return this.loaded.get(server.name) ?? undefined;
  }
}
