// The trail's downloads (src/audit/csv.ts): RFC 4180 CSV with a formula guard, and JSON Lines.
import { describe, expect, it } from "vitest";
import { CSV_COLUMNS, csvCell, csvHeader, csvRow, jsonlLine } from "../../src/audit/csv";
import { AuditRecordSchema, digest, type AuditRecord } from "../../src/audit/record";

/** A minimal RFC 4180 reader, so the test reads rows back instead of comparing strings it built. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  return rows;
}

const record: AuditRecord = {
  v: 1,
  id: "chat-1:t1.0.0",
  at: Date.UTC(2026, 10, 29, 1, 2, 3),
  endedAt: Date.UTC(2026, 10, 29, 1, 2, 3) + 15,
  chat: "chat-1",
  turnId: "t1",
  server: "filesystem",
  tool: "write_file",
  askedBy: { kind: "model", person: { key: "abcdefabcdef", name: "alice" } },
  decision: { how: "rule", ruleId: "r1", ruleText: 'filesystem.write_file when path is under "notes, old"/' },
  args: digest({ path: "notes/a" }),
  result: digest({ content: [] }),
  status: "ok",
  durationMs: 15,
};

describe("csvCell", () => {
  it.each([
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
    ["+1", "'+1"],
    ["-2", "'-2"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["=a,b", `"'=a,b"`],
  ])("%j → %j", (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it("writes numbers as they are and nothing for a missing value", () => {
    expect(csvCell(42)).toBe("42");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell(null)).toBe("");
  });
});

describe("csvRow", () => {
  it("reads back as the header's columns, one row per record", () => {
    const rows = parseCsv(csvHeader() + csvRow(record, "=Plan, draft") + csvRow({ ...record, id: "chat-1:x", result: undefined, status: "denied" }));
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(3);
    const first = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, rows[1]?.[i]]));
    expect(first).toMatchObject({
      at_iso: "2026-11-29T01:02:03.000Z",
      chat: "chat-1",
      chat_title: "'=Plan, draft",
      call_id: "t1.0.0",
      asked_by_kind: "model",
      asked_by: "alice",
      decision: "rule",
      rule: 'filesystem.write_file when path is under "notes, old"/',
      args_bytes: String(record.args.bytes),
      args_sha256: record.args.sha256,
      status: "ok",
      duration_ms: "15",
    });
    const second = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, rows[2]?.[i]]));
    expect(second).toMatchObject({ call_id: "x", result_bytes: "", result_sha256: "", status: "denied", client: "" });
    // An app's row names the app; a name a spreadsheet would run stays text (an app picks its own name).
    const app = { ...record, askedBy: { kind: "mcp_client" as const, client: { id: "a".repeat(40), name: "=cmd|' /C calc'!A0" } } };
    const [, appRow] = parseCsv(csvHeader() + csvRow(app));
    expect(appRow?.[CSV_COLUMNS.indexOf("client")]).toBe("'=cmd|' /C calc'!A0");
  });
});

describe("jsonlLine", () => {
  it("is one line that parses back to the record", () => {
    const line = jsonlLine(record);
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(AuditRecordSchema.parse(JSON.parse(line))).toEqual(record);
  });
});
