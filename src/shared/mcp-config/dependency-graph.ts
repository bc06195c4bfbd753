// Start order of MCP servers from their `dependencies`: levels that can start in
// parallel, and the cycles that make an order impossible. Used by the config loader
// (validation), the host and the bridge (startup). Runtime-neutral.
import { EdgehostError } from "../errors";

export interface DependencyNode {
  name: string;
  dependencies: string[];
}

export class DependencyCycleError extends EdgehostError {
  readonly code = "dependency_cycle";
  /** The cycle as names, first name repeated at the end: `["a", "b", "a"]`. */
  constructor(readonly cycle: string[]) {
    super(`dependency cycle: ${cycle.join(" -> ")}`);
  }
}

/**
 * Levels of server names: every server's dependencies are in earlier levels, so each
 * level can start in parallel once the previous one is ready. Names keep their input
 * order within a level. Dependencies on names outside `servers` are ignored, so a
 * caller can order a subset (only the enabled servers, a session's choice).
 * Throws DependencyCycleError if the dependencies form a cycle.
 */
export function dependencyOrder(servers: readonly DependencyNode[]): string[][] {
  const cycle = findDependencyCycles(servers)[0];
  if (cycle) throw new DependencyCycleError(cycle);

  const known = new Set(servers.map((server) => server.name));
  const levelOf = new Map<string, number>();
  const byName = new Map(servers.map((server) => [server.name, server]));
  // Acyclic here (self-dependencies included), so the recursion ends.
  const level = (name: string): number => {
    const cached = levelOf.get(name);
    if (cached !== undefined) return cached;
    const deps = (byName.get(name)?.dependencies ?? []).filter((dep) => known.has(dep));
    const value = deps.length === 0 ? 0 : Math.max(...deps.map(level)) + 1;
    levelOf.set(name, value);
    return value;
  };

  const levels: string[][] = [];
  for (const server of servers) {
    const index = level(server.name);
    while (levels.length <= index) levels.push([]);
    levels[index]?.push(server.name);
  }
  return levels;
}

/**
 * Every cycle found by a depth-first walk in input order, each as names with the first
 * repeated at the end (`a -> b -> a`). A server listing itself is a cycle `a -> a`.
 * Empty when the graph is acyclic.
 */
export function findDependencyCycles(servers: readonly DependencyNode[]): string[][] {
  const byName = new Map(servers.map((server) => [server.name, server]));
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];

  const walk = (name: string): void => {
    state.set(name, "visiting");
    stack.push(name);
    for (const dep of byName.get(name)?.dependencies ?? []) {
      if (!byName.has(dep)) continue;
      const seen = state.get(dep);
      if (seen === "visiting") cycles.push([...stack.slice(stack.indexOf(dep)), dep]);
      else if (seen === undefined) walk(dep);
    }
    stack.pop();
    state.set(name, "done");
  };

  for (const server of servers) {
    if (!state.has(server.name)) walk(server.name);
  }
  return cycles;
}
