// A code block's colours as ranges (public/chat/code-colours.js), from the real vendored
// highlight.js's HTML: what the highlight worker sends the page instead of markup.
import { describe, expect, it } from "vitest";

type Hljs = { highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string } };
// The page's modules are checked as JavaScript on their own (public/tsconfig.json): loaded here by path, typed by hand.
const coloursPath = "../../public/chat/code-colours.js";
const hljsPath = "../../public/vendor/highlight.js/highlight.min.js";
const { colourRanges, GROUPS } = (await import(coloursPath)) as { colourRanges: (html: string) => number[]; GROUPS: readonly string[] };
const hljs = ((await import(hljsPath)) as { default: Hljs }).default;

/** The flat [start, end, group, …] list as triples. */
function triples(ranges: number[]): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let i = 0; i < ranges.length; i += 3) out.push([ranges[i] ?? -1, ranges[i + 1] ?? -1, ranges[i + 2] ?? -1]);
  return out;
}

/** The coloured runs of `code` in `language`, as "group:text". */
function runs(code: string, language: string): string[] {
  const ranges = colourRanges(hljs.highlight(code, { language, ignoreIllegals: true }).value);
  return triples(ranges).map(([start, end, group]) => `${GROUPS[group]}:${code.slice(start, end)}`);
}

describe("code colours", () => {
  it("counts escaped characters as one each, so ranges fall on the code's own text", () => {
    expect(runs(`x = "a<b>&'c" # done\n`, "python")).toEqual([`string:"a<b>&'c"`, "comment:# done"]);
  });

  it("gives a nested span the colour of its innermost coloured class, and drops spans that colour nothing", () => {
    // hljs-subst (a template's ${}) colours nothing: it keeps the string's colour; `this` and `.b` colour nothing.
    expect(runs("const a = this.b?.c(1, 'x');\nconsole.log(`v ${a}`);\n", "ts")).toEqual([
      "keyword:const",
      "title:c",
      "number:1",
      "string:'x'",
      "title:log",
      "string:`v ${a}`",
    ]);
    // A decorator is hljs-meta (a type's colour); a class's parent is a title.
    expect(runs("@deco\nclass A(B): pass\n", "python")).toEqual(["type:@deco", "keyword:class", "title:A", "title:B", "keyword:pass"]);
  });

  it("makes one run of a colour split only by white space, and keeps runs split by anything else apart", () => {
    expect(runs("# one\n# two\nx = [1, 2]\n", "python")).toEqual(["comment:# one\n# two", "number:1", "number:2"]);
  });

  it("is only whole, ordered, non-overlapping ranges over the text", () => {
    const code = Array.from({ length: 40 }, (_, k) => `    total_${k} = compute(${k}, "s") * 2  # step ${k}`).join("\n");
    const ranges = colourRanges(hljs.highlight(code, { language: "python", ignoreIllegals: true }).value);
    expect(ranges.length % 3).toBe(0);
    expect(ranges.length).toBeGreaterThan(100);
    let at = 0;
    for (const [start, end, group] of triples(ranges)) {
      expect(start).toBeGreaterThanOrEqual(at);
      expect(end).toBeGreaterThan(start);
      expect(end).toBeLessThanOrEqual(code.length);
      expect(GROUPS[group]).toBeDefined();
      at = end;
    }
  });
});
