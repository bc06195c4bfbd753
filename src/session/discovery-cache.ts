// What a session's servers offered last time (tools, as the model sees them, and
// the per-server guides), kept in the session's storage under a key derived from
// the server configuration. A session that wakes cold can then make its first
// model call at once, while its connections open in parallel; a tool call waits
// for its server. A changed configuration (a deploy, another mcp.json) misses.
import { z } from "zod";
import type { SettingsStore } from "../approval/approvals";
import { ToolViewSchema, type ToolView } from "../mcp/capabilities";
import type { McpConfig } from "../shared/mcp-config/config";
import type { ServerGuide } from "../mcp/guide";

const KEY = "discovery";

const DiscoverySchema = z.object({
  key: z.string(),
  tools: z.array(ToolViewSchema),
  guides: z.array(z.object({ server: z.string(), source: z.enum(["prompt", "generated"]), text: z.string() })),
});
export type Discovery = z.infer<typeof DiscoverySchema>;

/** FNV-1a over the config's JSON: a cache key, not a secret (header values only feed the hash). */
export function configKey(config: McpConfig): string {
  const text = JSON.stringify(config.servers);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // v2: guides no longer list tools (guide.ts); a cache from before must not bring them back.
  return `v2:${hash.toString(16)}:${text.length}`;
}

export class DiscoveryCache {
  private loaded?: Discovery | null;

  constructor(
    private readonly store: SettingsStore,
    private readonly key: string,
  ) {}

  /** The last discovery for this configuration, if any. */
  get(): Discovery | undefined {
    if (this.loaded === undefined) {
      const parsed = DiscoverySchema.safeParse(this.store.getSetting(KEY));
      this.loaded = parsed.success && parsed.data.key === this.key ? parsed.data : null;
    }
    return this.loaded ?? undefined;
  }

  save(tools: ToolView[], guides: ServerGuide[]): void {
    this.loaded = { key: this.key, tools, guides };
    this.store.setSetting(KEY, this.loaded);
  }
}
