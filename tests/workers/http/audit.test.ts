// The audit trail's routes on the real Worker (docs/audit.md, http-api.md): a page newest
// first, the JSON Lines and CSV downloads, only ever the caller's own rows, and the
// operator's /admin with counts per kind of decision and nothing of what was called.
import { describe, expect, inject, it } from "vitest";
import { CSV_COLUMNS } from "../../../src/audit/csv";
import { type AuditRecord, AuditRecordSchema } from "../../../src/audit/record";
import type { AdminView } from "../../../src/http/admin-view";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type Message, type SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");

async function turn(socket: SessionClient, approved: boolean): Promise<void> {
  const from = socket.received.length;
  socket.send({ type: "message", text: "write" });
  const asked = (await socket.next(frameOf("approval_request"), from)) as Message<"approval_request">;
  socket.send({ type: "approval", callId: asked.callId, approved });
  expect((await socket.turnEnd(from)).end.reason).toBe("complete");
}

async function page(query: string, user: "alice" | "bob" = "alice"): Promise<{ records: AuditRecord[]; next?: string; titles: Record<string, string> }> {
  const response = await workerFetch(`/api/audit${query}`, {}, user);
  expect(response.status).toBe(200);
  return (await response.json()) as { records: AuditRecord[]; next?: string; titles: Record<string, string> };
}

describe("/api/audit", () => {
  it("pages newest first, downloads as JSON Lines and CSV, shows bob none of alice's rows, and /admin only counts", async () => {
    const marker = `marker-${crypto.randomUUID()}`;
    const call = (name: string, id: string) => [
      reply.callReply("filesystem__write_file", { path: `${root}/sub/${name}`, content: marker }, { id }),
      reply.text("done"),
    ];
    await script(llm, KEY, [...call("http-audit-1.txt", "h1"), ...call("http-audit-2.txt", "h2"), ...call("http-audit-3.txt", "h3")]);
    const chat = crypto.randomUUID();
    const socket = await openSession(chat);
    await turn(socket, true);
    await turn(socket, false);
    await turn(socket, true);
    socket.close();
    await expect.poll(async () => (await page(`?session=${chat}`)).records.length, { timeout: 15_000 }).toBe(3);

    // Newest first, two to a page, the cursor leading to the rest.
    const first = await page(`?session=${chat}&limit=2`);
    expect(first.records.map((r) => r.decision.answer)).toEqual(["allowed", "denied"]);
    expect(first.next).toBeDefined();
    const second = await page(`?session=${chat}&limit=2&before=${first.next}`);
    expect(second.records.map((r) => r.decision.answer)).toEqual(["allowed"]);
    expect(second.next).toBeUndefined();
    expect(first.records[0]?.at).toBeGreaterThanOrEqual(second.records[0]?.at ?? Infinity);

    // JSON Lines: a download, one valid record per line, oldest first.
    const jsonl = await workerFetch(`/api/audit/export?format=jsonl&session=${chat}`);
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get("content-disposition")).toMatch(/^attachment; filename="edgehost-audit-\d{4}-\d{2}-\d{2}\.jsonl"$/);
    const lines = (await jsonl.text()).trimEnd().split("\n");
    const records = lines.map((line) => AuditRecordSchema.parse(JSON.parse(line)));
    expect(records.map((r) => r.status)).toEqual(["ok", "denied", "ok"]);
    expect(records.map((r) => r.id)).toEqual([...first.records, ...second.records].map((r) => r.id).reverse());

    // CSV: the header, then a row per record with its hash.
    const csv = await workerFetch(`/api/audit/export?format=csv&session=${chat}`);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(/filename="edgehost-audit-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = (await csv.text()).split("\r\n").filter(Boolean);
    expect(rows[0]).toBe(CSV_COLUMNS.join(","));
    expect(rows).toHaveLength(4);
    const column = (name: (typeof CSV_COLUMNS)[number]) => rows.slice(1).map((row) => row.split(",")[CSV_COLUMNS.indexOf(name)]);
    expect(column("decision")).toEqual(["asked", "asked", "asked"]);
    expect(column("answer")).toEqual(["allowed", "denied", "allowed"]);
    expect(column("args_sha256")).toEqual(records.map((r) => r.args.sha256));

    // The downloads and pages hold no argument text.
    for (const text of [lines.join("\n"), rows.join("\n"), JSON.stringify(first)]) expect(text).not.toContain(marker);

    // Bob: alice's chat id matches none of his rows, in the page and in both downloads.
    expect((await page(`?session=${chat}`, "bob")).records).toEqual([]);
    expect((await page("", "bob")).records.filter((r) => r.chat === chat)).toEqual([]);
    expect(await (await workerFetch(`/api/audit/export?format=jsonl&session=${chat}`, {}, "bob")).text()).toBe("");
    expect((await (await workerFetch(`/api/audit/export?format=csv`, {}, "bob")).text()).split("\r\n").filter(Boolean)).toEqual([CSV_COLUMNS.join(",")]);

    // The operator (dave): counts per kind of decision, and nothing of what was called.
    const denials = async () => ((await (await workerFetch("/api/admin", {}, "dave")).json()) as AdminView).decisions.asked_denied ?? 0;
    await expect.poll(denials, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    const admin = await workerFetch("/api/admin", {}, "dave");
    const adminText = await admin.text();
    const view = JSON.parse(adminText) as AdminView;
    expect(view.decisions.asked_allowed).toBeGreaterThanOrEqual(2);
    expect(view.decisions.asked_denied).toBeGreaterThanOrEqual(1);
    expect(adminText).not.toContain(marker);
    expect(adminText).not.toContain(records[0]?.args.sha256);
    const adminPage = await (await workerFetch("/admin", {}, "dave")).text();
    expect(adminPage).toContain("Tool calls by decision");
    expect(adminPage).not.toContain(marker);
  });

  it("refuses a bad query with a typed error naming what is wrong", async () => {
    for (const query of ["/api/audit?limit=0", "/api/audit?before=yesterday", "/api/audit/export?format=xml"]) {
      const response = await workerFetch(query);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: "bad_request", message: expect.stringMatching(/the query takes/) } });
    }
  });
});
