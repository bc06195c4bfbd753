// The one decision order (src/approval/decision.ts): each source answers in its turn, the
// first that allows says how, and nothing allows when none does.
import { describe, expect, it } from "vitest";
import { type DecisionSources, decide } from "../../src/approval/decision";

const call = { server: "filesystem", tool: "write_file", arguments: { path: "notes/a.txt" }, turnId: "t1" };
const none: DecisionSources = { required: true, alwaysAllow: () => [], remembered: () => [], rules: () => undefined };

describe("decide", () => {
  it.each([
    ["TOOL_APPROVAL off", { ...none, required: false }, "policy_off"],
    ["mcp.json alwaysAllow", { ...none, alwaysAllow: (s: string) => (s === "filesystem" ? ["write_file"] : []) }, "config"],
    ["the chat's always-allow", { ...none, remembered: () => ["filesystem.write_file"] }, "always"],
    ["an argument rule", { ...none, rules: () => ({ id: "r1", text: "filesystem.write_file when path is under notes/" }) }, "rule"],
  ] as const)("%s allows without asking", (_, sources, how) => {
    expect(decide(sources, call)).toMatchObject({ allowed: true, how });
  });

  it("asks when no source allows: another tool's always-allow, another server's alwaysAllow, no rule", () => {
    const sources: DecisionSources = {
      required: true,
      alwaysAllow: (s) => (s === "other" ? ["write_file"] : ["read_file"]),
      remembered: () => ["filesystem.read_file", "other.write_file"],
      rules: () => undefined,
    };
    expect(decide(sources, call)).toBeUndefined();
  });

  it("takes the earlier source first: always-allow is said before a rule that also matches", () => {
    const decision = decide({ ...none, remembered: () => ["filesystem.write_file"], rules: () => ({ id: "r1", text: "x" }) }, call);
    expect(decision).toEqual({ allowed: true, how: "always" });
  });

  it("names the rule that allowed the call, and passes the call's arguments to the rules", () => {
    const seen: unknown[] = [];
    const decision = decide(
      {
        ...none,
        rules: (server, tool, args) => {
          seen.push([server, tool, args]);
          return { id: "r7", text: "filesystem.write_file when path is under notes/" };
        },
      },
      call,
    );
    expect(decision).toEqual({ allowed: true, how: "rule", ruleId: "r7", ruleText: "filesystem.write_file when path is under notes/" });
    expect(seen).toEqual([["filesystem", "write_file", { path: "notes/a.txt" }]]);
  });

  it("a scheduled run's turn grant allows that turn's calls only, after alwaysAllow and before always-allow (issue 39)", () => {
    const granted = (turnId: string, server: string, tool: string) => turnId === "t1" && `${server}.${tool}` === "filesystem.write_file";
    expect(decide({ ...none, granted }, call)).toEqual({ allowed: true, how: "pre_granted" });
    expect(decide({ ...none, granted, remembered: () => ["filesystem.write_file"] }, call)).toEqual({ allowed: true, how: "pre_granted" });
    expect(decide({ ...none, granted, alwaysAllow: () => ["write_file"] }, call)).toEqual({ allowed: true, how: "config" });
    // Another turn, and a call with no turn (the console, an app, the gateway), are asked.
    expect(decide({ ...none, granted }, { ...call, turnId: "t2" })).toBeUndefined();
    expect(decide({ ...none, granted }, { ...call, turnId: null })).toBeUndefined();
    expect(decide({ ...none, granted }, { ...call, tool: "read_file" })).toBeUndefined();
  });
});
