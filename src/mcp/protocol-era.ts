// Which MCP era a server speaks (2026-07-28 "modern" or the 2025 "legacy" handshake),
// as the SDK's `versionNegotiation: { mode: "auto" }` found it, and the verdict kept so
// the next connect skips the `server/discover` probe (the SDK's `connect({ prior })`).
// A remembered modern verdict that went stale fails at once, and the connection probes
// again (connect-attempt.ts); a remembered legacy verdict would succeed silently against
// a server that has since moved to 2026 (it still answers `initialize`), so it is
// trusted only for LEGACY_VERDICT_MS after it was found.
import type { Client, DiscoverResult, PriorDiscovery } from "@modelcontextprotocol/client";
import { z } from "zod";

export const EraSchema = z.enum(["modern", "legacy"]);
export type Era = z.infer<typeof EraSchema>;

/** How long a legacy verdict is used without probing: a day, so an upgraded server is found by the next day's connect. */
export const LEGACY_VERDICT_MS = 24 * 60 * 60 * 1000;

// The discover result is the server's to shape (capabilities, _meta): kept as an object and
// handed back to the SDK, which validates it again before adopting it.
export const EraVerdictSchema = z.object({
  era: EraSchema,
  protocolVersion: z.string().max(40),
  discover: z.record(z.string(), z.unknown()).optional(),
  /** When it was found (ms since the epoch): legacy verdicts expire. */
  at: z.number(),
});
export type EraVerdict = z.infer<typeof EraVerdictSchema>;

/** What a connected client negotiated, or undefined before it connected. */
export function verdictOf(client: Client, at: number): EraVerdict | undefined {
  const era = client.getProtocolEra();
  const protocolVersion = client.getNegotiatedProtocolVersion();
  if (!era || !protocolVersion) return undefined;
  const discover = era === "modern" ? client.getDiscoverResult() : undefined;
  return { era, protocolVersion, ...(discover ? { discover: discover as Record<string, unknown> } : {}), at };
}

/** The SDK's `prior` for a remembered verdict, or undefined when it must not be used (none, or a legacy one past its day). */
export function priorFrom(verdict: EraVerdict | undefined, now: number): PriorDiscovery | undefined {
  if (!verdict) return undefined;
  if (verdict.era === "legacy") return now - verdict.at < LEGACY_VERDICT_MS ? { kind: "legacy" } : undefined;
  return verdict.discover ? { kind: "modern", discover: verdict.discover as DiscoverResult } : undefined;
}

/** The revisions the host speaks, newest first: the SDK client's modern revision (not exported by 2.4) and its 2025-era list. */
export function hostRevisions(legacy: readonly string[]): string[] {
  return ["2026-07-28", ...legacy];
}
