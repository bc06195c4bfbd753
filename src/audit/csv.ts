// The trail as a person downloads it: JSON Lines (one record per line, exactly as stored)
// or CSV (RFC 4180: CRLF rows, fields with a comma, quote or line break quoted, quotes
// doubled). A cell a spreadsheet would run as a formula (starting = + - @, or a tab or
// carriage return) gets a leading ' — a tool or rule named "=HYPERLINK(…)" stays text.
import type { AuditRecord } from "./record";

export const CSV_COLUMNS = [
  "at_iso",
  "chat",
  "chat_title",
  "turn_id",
  "call_id",
  "server",
  "tool",
  "asked_by_kind",
  "asked_by",
  "schedule_id",
  "decision",
  "answer",
  "decided_by",
  "via",
  "rule",
  "args_bytes",
  "args_sha256",
  "result_bytes",
  "result_sha256",
  "status",
  "error_code",
  "duration_ms",
  // Last, so a reader of the earlier columns by position is unchanged: the connected app of an `mcp_client` row.
  "client",
] as const;

const FORMULA = /^[=+\-@\t\r]/;

/** One CSV field: guarded against formulas, quoted when it must be. */
export function csvCell(value: string | number | undefined | null): string {
  if (value === undefined || value === null) return "";
  let text = String(value);
  if (typeof value === "string" && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const row = (cells: (string | number | undefined | null)[]): string => `${cells.map(csvCell).join(",")}\r\n`;

export const csvHeader = (): string => row([...CSV_COLUMNS]);

/** The call's own id: the record's id is `<chat>:<callId>`. */
const callIdOf = (record: AuditRecord): string => (record.id.startsWith(`${record.chat}:`) ? record.id.slice(record.chat.length + 1) : record.id);

/** One record as a CSV row; `title`: the chat's title at export time, if it is still listed. */
export function csvRow(record: AuditRecord, title?: string): string {
  const { askedBy, decision } = record;
  return row([
    new Date(record.at).toISOString(),
    record.chat,
    title,
    record.turnId,
    callIdOf(record),
    record.server,
    record.tool,
    askedBy.kind,
    askedBy.person?.name,
    askedBy.scheduleId,
    decision.how,
    decision.answer,
    decision.by?.name,
    decision.via,
    decision.ruleText,
    record.args.bytes,
    record.args.sha256,
    record.result?.bytes,
    record.result?.sha256,
    record.status,
    record.errorCode,
    record.durationMs,
    askedBy.client?.name,
  ]);
}

/** One record as a JSON Lines line. */
export const jsonlLine = (record: AuditRecord): string => `${JSON.stringify(record)}\n`;
