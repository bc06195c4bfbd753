// The person's audit trail (docs/audit.md): a page of it for the Activity view, and the
// whole of it (or one chat's, or a time span's) as a download in JSON Lines or CSV, streamed
// in pages from their account. Only ever the caller's own account is read: another
// person's chat id simply matches none of their rows.
import { Hono } from "hono";
import { z } from "zod";
import { csvHeader, csvRow, jsonlLine } from "../audit/csv";
import type { AppEnv } from "../identity/identify";
import { userAccount } from "../users/account";
import { parsed } from "./request-body";

export const audit = new Hono<AppEnv>();

const EXPORT_PAGE = 1_000;
const chatId = z.string().min(1).max(200);
const time = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

const PageQuery = z.object({
  session: chatId.optional(),
  before: z
    .string()
    .regex(/^\d{1,15}\.\d{1,15}$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const ExportQuery = z.object({
  format: z.enum(["jsonl", "csv"]).default("jsonl"),
  session: chatId.optional(),
  since: time.optional(),
  until: time.optional(),
});

audit.get(
  "/api/audit",
  parsed("query", PageQuery, "the query takes session (a chat id), before (a cursor from the page before) and limit (1-200)"),
  async (c) => {
    const { session, before, limit } = c.req.valid("query");
    return c.json(await userAccount(c.env, c.var.identity.id).auditPage({ session, before, limit }));
  },
);

audit.get(
  "/api/audit/export",
  parsed("query", ExportQuery, "the query takes format (jsonl or csv), session (a chat id), since and until (ms since the epoch)"),
  (c) => {
    const { format, session, since, until } = c.req.valid("query");
    const account = userAccount(c.env, c.var.identity.id);
    const encoder = new TextEncoder();
    let after = 0;
    let started = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!started && format === "csv") controller.enqueue(encoder.encode(csvHeader()));
        started = true;
        const page = await account.auditExport({ session, since, until, after, limit: EXPORT_PAGE });
        const text = page.records.map((r) => (format === "csv" ? csvRow(r, page.titles[r.chat]) : jsonlLine(r))).join("");
        if (text) controller.enqueue(encoder.encode(text));
        if (page.last === undefined) controller.close();
        else after = page.last;
      },
    });
    const filename = `edgehost-audit-${new Date().toISOString().slice(0, 10)}.${format}`;
    return new Response(body, {
      headers: {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8",
        "content-disposition": `attachment; filename="${filename}"`,
        "cache-control": "no-store",
      },
    });
  },
);
