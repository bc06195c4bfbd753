// `equals` argument rules (issue 40, docs/rules.md): "… when mode is "read"" allows a call
// only when that argument is exactly the text (no case folding, no trimming), an array only
// when every element is; made from an approval only if the call it answers matches.
import { describe, expect, it } from "vitest";
import { compileRules, makeRule, ruleText } from "../../src/approval/argument-rules";

const call = (args: Record<string, unknown>) => ({ server: "db", tool: "query", arguments: args });
const spec = (value: string, arg = "mode") => ({ arg, kind: "equals" as const, value, scope: "chat" as const });

describe("equals rules", () => {
  const made = makeRule(spec("read"), call({ mode: "read", sql: "select 1" }), "r1", 1);
  if (!made.ok) throw new Error(made.why);
  const match = compileRules([made.rule]);

  it("read as the person wrote them", () => {
    expect(ruleText(made.rule)).toBe('db.query when mode is "read"');
  });

  it.each([
    ["read", true],
    ["READ", false],
    ["read ", false],
    [" read", false],
    ["write", false],
    ["", false],
    [["read", "read"], true],
    [["read", "write"], false],
    [[], false],
    [1, false],
    [null, false],
    [{ mode: "read" }, false],
  ])("mode = %j matches: %s", (mode, allowed) => {
    expect(match("db", "query", { mode, sql: "drop table x" }) !== undefined).toBe(allowed);
  });

  it("never matches another tool, or a call without the argument", () => {
    expect(match("db", "execute", { mode: "read" })).toBeUndefined();
    expect(match("other", "query", { mode: "read" })).toBeUndefined();
    expect(match("db", "query", { sql: "select 1" })).toBeUndefined();
  });

  it("is refused when the call it answers has another value, or no such text argument", () => {
    expect(makeRule(spec("read"), call({ mode: "write" }), "r2", 1)).toMatchObject({ ok: false, why: expect.stringContaining("does not match") });
    expect(makeRule(spec("read", "limit"), call({ mode: "read", limit: 5 }), "r3", 1)).toMatchObject({ ok: false, why: expect.stringContaining("not text") });
    expect(makeRule(spec("read", "nope"), call({ mode: "read" }), "r4", 1)).toMatchObject({ ok: false, why: expect.stringContaining("no argument") });
  });
});
