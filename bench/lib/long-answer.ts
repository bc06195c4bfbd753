// The long Markdown answer of the page benches (bench/page-stream.ts, bench/page-paint.ts):
// about 60 KB of prose, lists, tables and highlighted code blocks, written by the fake
// model in small pieces, as a model streams it.

/** One section of the long answer: a heading, prose, a list, a table and a code block a highlighter knows. */
function section(i: number): string {
  const code = Array.from({ length: 8 + (i % 5) * 6 }, (_, k) => `    total_${k} = compute(${i}, ${k}) * 2  # step ${k} of part ${i}`);
  return [
    `### Part ${i}`,
    "",
    `Some prose for part ${i} with **bold**, \`inline code\`, a [link](https://example.com/${i}) and 2*${i}*3, long enough to wrap on a phone screen.`,
    "",
    "- a point",
    "  - a sub-point with *emphasis*",
    "- another point",
    "",
    "| key | value | note |",
    "|:---|---:|:---:|",
    `| part | ${i} | first |`,
    `| size | ${i * 7} | second |`,
    "",
    "```python",
    `def part_${i}(items):`,
    ...code,
    "    return total_0",
    "```",
    "",
  ].join("\n");
}

/** An answer of at least `kb` thousand characters, whole sections. */
export function longAnswer(kb: number): string {
  let text = "";
  for (let i = 1; text.length < kb * 1000; i++) text += section(i);
  return text;
}

/** `text` in pieces of `size` characters (the fake model's chunks). */
export const pieces = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
