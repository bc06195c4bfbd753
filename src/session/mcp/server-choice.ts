// Which of its servers a session uses: the person's choice, kept in the session's
// settings, and the servers those depend on (connected too, so a chosen server's
// dependency is never left out).
import type { SettingsStore } from "../../approval/approvals";
import type { McpConfig, RemoteServerConfig } from "../../shared/mcp-config/config";

const ENABLED_KEY = "enabledServers";

/** Drops the session's server choice (the session is being deleted). */
export function forgetServerChoice(store: SettingsStore): void {
  store.setSetting(ENABLED_KEY, undefined);
}

export function chooseServers(store: SettingsStore, names: string[]): void {
  store.setSetting(ENABLED_KEY, names);
}

/** Whether the session uses a server: all of them until the person chose. */
export function enabledIn(store: SettingsStore): (server: string) => boolean {
  const chosen = store.getSetting<string[]>(ENABLED_KEY);
  if (!chosen) return () => true;
  const set = new Set(chosen);
  return (server) => set.has(server);
}

/**
 * The configuration the host connects: servers the session switched off are marked
 * disabled unless a server it uses depends on them. `leftOut` names those marked.
 */
export function connectableConfig(config: McpConfig, enabled: (server: string) => boolean): { config: McpConfig; leftOut: Set<string> } {
  const servers = config.servers;
  const needed = new Set(servers.filter((s) => !s.disabled && enabled(s.name)).map((s) => s.name));
  for (let grew = true; grew; ) {
    grew = false;
    for (const server of servers) {
      if (!needed.has(server.name)) continue;
      for (const dependency of server.dependencies) {
        if (needed.has(dependency)) continue;
        needed.add(dependency);
        grew = true;
      }
    }
  }
  const leftOut = new Set(servers.filter((s) => !s.disabled && !needed.has(s.name)).map((s) => s.name));
  return { config: { ...config, servers: servers.map((s) => (leftOut.has(s.name) ? { ...s, disabled: true } : s)) }, leftOut };
}

/**
 * The servers whose roots alone changed, when nothing else did (same servers, same
 * entries otherwise, roots listed before and after); undefined when anything else changed.
 */
export function rootsOnlyChanges(before: RemoteServerConfig[], after: RemoteServerConfig[]): RemoteServerConfig[] | undefined {
  if (before.length !== after.length) return undefined;
  const byName = new Map(before.map((s) => [s.name, s]));
  const changed: RemoteServerConfig[] = [];
  for (const server of after) {
    const old = byName.get(server.name);
    if (!old) return undefined;
    if (JSON.stringify(old) === JSON.stringify(server)) continue;
    if (old.roots === undefined || server.roots === undefined) return undefined;
    if (JSON.stringify({ ...old, roots: [] }) !== JSON.stringify({ ...server, roots: [] })) return undefined;
    changed.push(server);
  }
  return changed;
}
