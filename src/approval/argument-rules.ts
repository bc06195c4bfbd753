// Argument rules: "allow `write_file` when `path` is under notes/", "allow `fetch` when `url`
// is on example.com". A rule names one tool and one top-level argument; made from the
// person's answer to an approval (the page builds it from the tool's schema), checked
// against the very call it answers, then kept (rule-store.ts) and compiled into matchers
// that decision.ts consults before asking. Matching is path-rule.ts / host-rule.ts.
import type { RuleSpec, RuleView } from "../protocol/messages";
import type { ArgumentRule } from "../shared/argument-rule";
import type { RuleMatch } from "./decision";
import { type HostPattern, hostText, normaliseHost, type Scheme, urlOnHost } from "./host-rule";
import { folderText, type NormalPath, normaliseFolder, normalisePath, normalUnder, type PathResult } from "./path-rule";

export type { ArgumentRule } from "../shared/argument-rule";

export type Made = { ok: true; rule: ArgumentRule } | { ok: false; why: string };

/** What the person reads: "filesystem.write_file when path is under notes/". */
export function ruleText(rule: Pick<ArgumentRule, "server" | "tool" | "arg" | "kind" | "value" | "schemes">): string {
  const name = `${rule.server}.${rule.tool}`;
  if (rule.kind === "path") return `${name} when ${rule.arg} is under ${rule.value}`;
  if (rule.kind === "equals") return `${name} when ${rule.arg} is ${JSON.stringify(rule.value)}`;
  const schemes = rule.schemes ?? ["https"];
  return `${name} when ${rule.arg} is on ${rule.value} (${schemes.join(" or ")})`;
}

export function ruleView(rule: ArgumentRule): RuleView {
  return { id: rule.id, text: ruleText(rule), scope: rule.scope, server: rule.server, tool: rule.tool };
}

/** `paths`: the call's path strings normalised so far (each once per call, however many rules read it). */
type Test = (value: string, paths: Map<string, PathResult>) => boolean;

function tester(rule: Pick<ArgumentRule, "kind" | "value" | "schemes">): Test | undefined {
  // Exactly this text: no case folding or trimming (an enum's values are exact).
  if (rule.kind === "equals") return (value) => value === rule.value;
  if (rule.kind === "path") {
    const folder = normaliseFolder(rule.value);
    if (!folder.ok) return undefined;
    const base: NormalPath = folder.path;
    return (value, paths) => {
      let path = paths.get(value);
      if (!path) {
        path = normalisePath(value);
        paths.set(value, path);
      }
      return path.ok && normalUnder(base, path.path);
    };
  }
  const host = normaliseHost(rule.value);
  if (!host.ok) return undefined;
  const pattern: HostPattern = host.pattern;
  const schemes = rule.schemes ?? ["https"];
  return (value) => urlOnHost(pattern, schemes, value);
}

/** A string matches by itself; an array of strings only when non-empty and every element matches; anything else never. */
function argumentMatches(test: Test, value: unknown, paths: Map<string, PathResult> = new Map()): boolean {
  if (typeof value === "string") return test(value, paths);
  if (!Array.isArray(value) || value.length === 0) return false;
  return value.every((item) => typeof item === "string" && test(item, paths));
}

/**
 * A rule from the person's answer to `call`, or why not: the argument must be one the call
 * has (a string or strings), the value must normalise, and the call being answered must match
 * it (a rule that would not have allowed this very call is a mistake, not a wish).
 */
export function makeRule(spec: RuleSpec, call: { server: string; tool: string; arguments: Record<string, unknown> }, id: string, now: number): Made {
  if (!Object.hasOwn(call.arguments, spec.arg)) return { ok: false, why: `this call has no argument "${spec.arg}"` };
  const given = call.arguments[spec.arg];
  const strings = typeof given === "string" || (Array.isArray(given) && given.length > 0 && given.every((v) => typeof v === "string"));
  if (!strings) return { ok: false, why: `"${spec.arg}" is not text, so a rule cannot judge it` };
  let value: string;
  if (spec.kind === "path") {
    const folder = normaliseFolder(spec.value);
    if (!folder.ok) return { ok: false, why: `the folder "${spec.value}" cannot be used: ${folder.why}` };
    value = folderText(folder.path);
  } else if (spec.kind === "equals") {
    value = spec.value;
  } else {
    const host = normaliseHost(spec.value);
    if (!host.ok) return { ok: false, why: `the host "${spec.value}" cannot be used: ${host.why}` };
    value = hostText(host.pattern);
  }
  const schemes: Scheme[] | undefined = spec.kind === "host" ? (spec.schemes ?? ["https"]) : undefined;
  const rule: ArgumentRule = {
    id,
    server: call.server,
    tool: call.tool,
    arg: spec.arg,
    kind: spec.kind,
    value,
    ...(schemes ? { schemes } : {}),
    scope: spec.scope,
    createdAt: now,
  };
  const test = tester(rule);
  if (!test || !argumentMatches(test, given)) return { ok: false, why: `this call's ${spec.arg} does not match "${ruleText(rule)}"` };
  return { ok: true, rule };
}

/** The rules compiled once per change: per tool, the first rule whose argument matches. */
export function compileRules(rules: readonly ArgumentRule[]): (server: string, tool: string, args: Record<string, unknown>) => RuleMatch | undefined {
  const byTool = new Map<string, { id: string; text: string; arg: string; test: Test }[]>();
  for (const rule of rules) {
    const test = tester(rule);
    // A stored rule that no longer normalises (the rules tightened since) allows nothing.
    if (!test) continue;
    const key = `${rule.server}\u0000${rule.tool}`;
    const list = byTool.get(key) ?? [];
    list.push({ id: rule.id, text: ruleText(rule), arg: rule.arg, test });
    byTool.set(key, list);
  }
  return (server, tool, args) => {
    const list = byTool.get(`${server}\u0000${tool}`);
    if (!list) return undefined;
    const paths = new Map<string, PathResult>();
    for (const rule of list) {
      if (Object.hasOwn(args, rule.arg) && argumentMatches(rule.test, args[rule.arg], paths)) return { id: rule.id, text: rule.text };
    }
    return undefined;
  };
}
