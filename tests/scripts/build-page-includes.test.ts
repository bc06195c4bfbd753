// index.html's include lines (scripts/build-page.mjs): the page's dialogs live in partials beside
// their scripts, and the built page has every one of them, once, without the partials' header comments.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { withIncludes } from "../../scripts/build-page.mjs";
import { repoRoot } from "../fixtures/servers";

const publicDir = join(repoRoot, "public");
const source = readFileSync(join(publicDir, "index.html"), "utf8");

function htmlUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "vendor" ? [] : htmlUnder(path);
    return entry.name.endsWith(".html") ? [relative(publicDir, path)] : [];
  });
}

describe("index.html's partials", () => {
  it("puts every partial's dialogs into the page once, without the include lines or the partials' header comments", () => {
    const built = withIncludes(source);
    expect(built).not.toContain("<!-- include:");
    const dialogs = [...built.matchAll(/<dialog id="([^"]+)"/g)].map((match) => match[1]);
    expect(new Set(dialogs).size).toBe(dialogs.length);
    for (const id of ["approval-dialog", "elicitation-dialog", "model-dialog", "people-dialog", "my-servers-dialog", "presets-dialog"])
      expect(dialogs).toContain(id);
    for (const partial of htmlUnder(publicDir).filter((path) => path !== "index.html")) {
      const text = readFileSync(join(publicDir, partial), "utf8");
      const header = text.slice(0, text.indexOf("\n"));
      expect(header).toMatch(/^<!-- .+ -->$/);
      expect(built).not.toContain(header);
      // Its body, verbatim, exactly once.
      expect(built.split(text.slice(header.length + 1)).length).toBe(2);
    }
  });

  it("includes every partial under public/, and names only files that exist", () => {
    const named = [...source.matchAll(/<!-- include: ([\w/-]+\.html) -->/g)].map((match) => match[1]);
    expect(named.sort()).toEqual(
      htmlUnder(publicDir)
        .filter((path) => path !== "index.html")
        .sort(),
    );
    expect(() => withIncludes("  <!-- include: dialogs/no-such-partial.html -->\n")).toThrow(/no-such-partial\.html/);
  });
});
