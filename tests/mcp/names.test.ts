import { describe, expect, it } from "vitest";
import { FUNCTION_NAME_PATTERN, FunctionNameMap, splitQualified } from "../../src/mcp/names";

const GEMINI = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;
const OPENAI = /^[a-zA-Z0-9_-]{1,64}$/;

describe("function names for models", () => {
  it("derives readable names valid for Gemini and OpenAI", () => {
    const map = new FunctionNameMap(["fs.read_text_file", "brave-search.brave_web_search", "everything.get-sum"]);
    expect(map.functionName("fs.read_text_file")).toBe("fs__read_text_file");
    expect(map.functionName("brave-search.brave_web_search")).toBe("brave-search__brave_web_search");
    expect(map.qualifiedName("everything__get-sum")).toBe("everything.get-sum");
  });

  it("sanitises characters and leading digits, and maps back through the table", () => {
    const map = new FunctionNameMap(["9lives.tool.with.dots", "srv.tool with spaces/é"]);
    for (const [qualified, fn] of map.entries()) {
      expect(fn).toMatch(GEMINI);
      expect(fn).toMatch(OPENAI);
      expect(map.qualifiedName(fn)).toBe(qualified);
    }
    expect(map.functionName("9lives.tool.with.dots")).toBe("_9lives__tool_with_dots");
  });

  it("never lets two tools collide, even when sanitising or truncating makes them equal", () => {
    const long = "x".repeat(80);
    const names = ["a.b-c", "a.b_c", "a.b c", `srv.${long}1`, `srv.${long}2`, "a_.b", "a._b"];
    const map = new FunctionNameMap(names);
    const fns = names.map((n) => map.functionName(n) ?? "");
    expect(new Set(fns).size).toBe(names.length);
    for (const [i, fn] of fns.entries()) {
      expect(fn).toMatch(FUNCTION_NAME_PATTERN);
      expect(fn.length).toBeLessThanOrEqual(64);
      expect(map.qualifiedName(fn)).toBe(names[i]);
    }
  });

  it("is stable: the same tools map the same way whatever their order", () => {
    const names = ["a.b-c", "a.b_c", "z.q", `s.${"y".repeat(70)}`];
    const one = new FunctionNameMap(names);
    const two = new FunctionNameMap([...names].reverse());
    expect([...one.entries()]).toEqual([...two.entries()]);
  });

  it("accepts the qualified name a model may echo back, and nothing else", () => {
    const map = new FunctionNameMap(["fs.list_directory"]);
    expect(map.qualifiedName("fs.list_directory")).toBe("fs.list_directory");
    expect(map.qualifiedName("fs__nope")).toBeUndefined();
  });

  it("splits on the first dot only", () => {
    expect(splitQualified("fs.a.b")).toEqual({ server: "fs", tool: "a.b" });
    expect(splitQualified(".x")).toBeUndefined();
    expect(splitQualified("x.")).toBeUndefined();
  });
});
