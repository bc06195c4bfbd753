// Path rules (src/approval/path-rule.ts) against attacker inputs: every form the Worker
// cannot judge by its text asks (no match), and only paths lexically under the folder pass.
import { describe, expect, it } from "vitest";
import { folderText, normaliseFolder, normalisePath, pathUnder } from "../../src/approval/path-rule";

function folder(value: string) {
  const result = normaliseFolder(value);
  if (!result.ok) throw new Error(`bad folder ${value}: ${result.why}`);
  return result.path;
}

const notes = folder("notes/");
const srv = folder("/srv/data");

describe("pathUnder: relative folder notes/", () => {
  it.each([
    ["notes/a.txt", true],
    ["notes", true],
    ["notes/", true],
    ["notes/./a", true],
    ["notes//a", true],
    ["./notes/a", true],
    ["notes/sub/../a", true],
    ["notes/sub/deep/file.md", true],
    ["notes/../secret.txt", false],
    ["notes/..", false],
    ["secret.txt", false],
    ["notes2/a", false],
    ["notesa", false],
    ["../notes/a", false],
    ["notes/../../notes/a", false],
    ["..\\x", false],
    ["notes\\..\\x", false],
    ["notes\\a", false],
    ["NOTES/a", false],
    ["Notes/a", false],
    ["note\u0301s/a", false],
    ["notes./a", false],
    ["notes /a", false],
    ["notes/a:stream", false],
    ["C:/notes/a", false],
    ["~/notes", false],
    ["~user/notes/a", false],
    ["NOTE~1/a", false],
    ["notes/.../a", false],
    ["file:///notes/a", false],
    ["notes/a\u0000.txt", false],
    ["notes/a\n", false],
    ["notes%2f..%2fsecret", false],
    ["notes/%2e%2e/secret", false],
    ["$HOME/notes/a", false],
    ["notes/${X}/a", false],
    ["/notes/a", false],
    ["/etc/passwd", false],
    ["", false],
    [`notes/${"a".repeat(5000)}`, false],
  ])("%j → %s", (value, expected) => {
    expect(pathUnder(notes, value)).toBe(expected);
  });

  it.each([[undefined], [null], [42], [["notes/a"]], [{ path: "notes/a" }]])("a non-string %j never matches", (value) => {
    expect(pathUnder(notes, value)).toBe(false);
  });
});

describe("pathUnder: absolute folder /srv/data", () => {
  it.each([
    ["/srv/data/a", true],
    ["/srv/data", true],
    ["//srv//data/./x", true],
    ["/srv/data/../data/x", true],
    ["/srv/data/../secret", false],
    ["/srv/database/x", false],
    ["srv/data/x", false],
    ["/../srv/data/x", false],
    ["/SRV/data/x", false],
  ])("%j → %s", (value, expected) => {
    expect(pathUnder(srv, value)).toBe(expected);
  });
});

describe("normaliseFolder", () => {
  it("writes a folder back as the person reads it", () => {
    expect(folderText(notes)).toBe("notes/");
    expect(folderText(srv)).toBe("/srv/data/");
    expect(folderText(folder("./a//b/./c/../")).toString()).toBe("a/b/");
  });

  it.each([["/"], ["."], ["./"], ["notes/.."], ["~/x"], ["C:\\x"], ["a/../.."], [""], ["%2e"]])("refuses %j as a rule's folder, saying why", (value) => {
    const result = normaliseFolder(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.why.length).toBeGreaterThan(3);
  });

  it("says why a path cannot be judged", () => {
    expect(normalisePath("notes/../../x")).toEqual({ ok: false, why: "it climbs above where it starts" });
    expect(normalisePath("~/x")).toEqual({ ok: false, why: "a leading ~ is expanded by the server" });
  });
});
