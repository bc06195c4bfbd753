// One Durable Object for the whole deployment (named "deployment"): what an operator
// sees at /admin. Sessions report each turn's end (who, which tools, how long, which
// servers were up) and the Worker reports failed requests; this object keeps the users
// seen, every server's last known health, per-tool call metrics across all sessions,
// and the last errors with their request and turn ids. Reports arrive off the user's
// path (after the answer), so a slow or lost report never slows or fails a turn.
import { DurableObject } from "cloudflare:workers";
import { addToHistogram, emptyHistogram, histogramPercentile, type Histogram } from "./latency-histogram";
import { DECISION_KINDS, type ErrorEvent, type OperationsSnapshot, type SessionEvent, type SessionReport } from "./reports";

/** The last errors kept. */
const ERRORS_KEPT = 100;
/** Tool rows kept (the least recently called go first): users' own servers make the set open-ended. */
const TOOLS_KEPT = 2_000;
const USERS_LISTED = 500;

type Row = Record<string, SqlStorageValue>;

export class Operations extends DurableObject<unknown> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, name TEXT NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, turns INTEGER NOT NULL DEFAULT 0)`,
    );
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS tools (server TEXT NOT NULL, tool TEXT NOT NULL, calls INTEGER NOT NULL, errors INTEGER NOT NULL, total_ms REAL NOT NULL, max_ms REAL NOT NULL, histogram TEXT NOT NULL, last_at INTEGER NOT NULL, PRIMARY KEY (server, tool))`,
    );
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS servers (server TEXT NOT NULL, owner TEXT NOT NULL, state TEXT NOT NULL, last_error TEXT, at INTEGER NOT NULL, PRIMARY KEY (server, owner))`,
    );
    this.sql.exec(`CREATE TABLE IF NOT EXISTS decisions (kind TEXT PRIMARY KEY, count INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, count INTEGER NOT NULL)`);
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS errors (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, source TEXT NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL, request_id TEXT, turn_id TEXT, user TEXT, session TEXT, server TEXT, tool TEXT)`,
    );
  }

  userSeen(id: string, name: string, now = Date.now()): void {
    this.sql.exec(
      `INSERT INTO users (id, name, first_seen, last_seen) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen`,
      id,
      name,
      now,
      now,
    );
  }

  /** When the deployment last saw `id` load the page (/api/me); undefined: never. Scheduled runs ask (src/session/schedules/owner-access.ts). */
  lastSeen(id: string): number | undefined {
    const row = this.sql.exec<{ last_seen: number }>(`SELECT last_seen FROM users WHERE id = ?`, id).toArray()[0];
    return row === undefined ? undefined : Number(row.last_seen);
  }

  /** A notification was dropped: its person reached PUSH_PER_HOUR (src/session/notify/push-port.ts). A count, nothing of whom. */
  pushDropped(): void {
    this.sql.exec(`INSERT INTO counters (name, count) VALUES ('push_dropped', 1) ON CONFLICT(name) DO UPDATE SET count = count + 1`);
  }

  sessionReport(report: SessionReport): void {
    this.userSeen(report.user.id, report.user.name, report.at);
    const deploymentServers = new Set(report.servers.filter((s) => s.deployment).map((s) => s.name));
    for (const event of report.events) this.sessionEvent(report, event, deploymentServers);
    const ownerOf = (deployment: boolean) => (deployment ? "" : report.user.name);
    for (const server of report.servers) {
      this.sql.exec(
        `INSERT INTO servers (server, owner, state, last_error, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(server, owner) DO UPDATE SET state = excluded.state, last_error = excluded.last_error, at = excluded.at`,
        server.name,
        ownerOf(server.deployment),
        server.state,
        server.lastError ?? null,
        report.at,
      );
    }
  }

  private sessionEvent(report: SessionReport, { at, calls, turn, decisions }: SessionEvent, deploymentServers: Set<string>): void {
    if (turn) this.sql.exec(`UPDATE users SET turns = turns + 1 WHERE id = ?`, report.user.id);
    for (const kind of DECISION_KINDS) {
      const count = decisions?.[kind];
      if (count && count > 0)
        this.sql.exec(`INSERT INTO decisions (kind, count) VALUES (?, ?) ON CONFLICT(kind) DO UPDATE SET count = count + excluded.count`, kind, count);
    }
    for (const call of calls) {
      const server = deploymentServers.has(call.server) ? call.server : `${call.server} (${report.user.name})`;
      this.recordCall(server, call.tool, call.ms, call.ok, at);
      if (!call.ok)
        this.recordError({
          ...noIds,
          at,
          source: "tool",
          code: call.code ?? "tool_error",
          message: call.code ? "the tool call failed" : "the tool answered with an error",
          requestId: turn?.requestId ?? null,
          turnId: turn?.turnId ?? null,
          user: report.user.name,
          session: report.session,
          server: call.server,
          tool: call.tool,
        });
    }
    if (turn?.error)
      this.recordError({
        ...noIds,
        at,
        source: "session",
        code: turn.error.code,
        message: turn.error.message,
        requestId: turn.requestId ?? null,
        turnId: turn.turnId,
        user: report.user.name,
        session: report.session,
      });
  }

  recordError(event: ErrorEvent): void {
    this.sql.exec(
      `INSERT INTO errors (at, source, code, message, request_id, turn_id, user, session, server, tool) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      event.at,
      event.source,
      event.code,
      event.message.slice(0, 300),
      event.requestId,
      event.turnId,
      event.user,
      event.session,
      event.server,
      event.tool,
    );
    this.sql.exec(`DELETE FROM errors WHERE seq <= (SELECT MAX(seq) FROM errors) - ?`, ERRORS_KEPT);
  }

  snapshot(): OperationsSnapshot {
    const users = this.sql.exec<Row>(`SELECT * FROM users ORDER BY last_seen DESC LIMIT ?`, USERS_LISTED).toArray();
    const servers = this.sql.exec<Row>(`SELECT * FROM servers ORDER BY owner, server`).toArray();
    const tools = this.sql.exec<Row>(`SELECT * FROM tools ORDER BY server, tool`).toArray();
    const errors = this.sql.exec<Row>(`SELECT * FROM errors ORDER BY seq DESC`).toArray();
    return {
      users: users.map((u) => ({
        id: String(u.id),
        name: String(u.name),
        firstSeen: Number(u.first_seen),
        lastSeen: Number(u.last_seen),
        turns: Number(u.turns),
      })),
      servers: servers.map((s) => ({
        name: String(s.server),
        owner: s.owner === "" ? null : String(s.owner),
        state: String(s.state),
        lastError: s.last_error === null ? null : String(s.last_error),
        at: Number(s.at),
      })),
      tools: tools.map((t) => {
        const calls = Number(t.calls);
        const maxMs = Number(t.max_ms);
        const histogram = JSON.parse(String(t.histogram)) as Histogram;
        return {
          server: String(t.server),
          tool: String(t.tool),
          calls,
          errors: Number(t.errors),
          meanMs: calls > 0 ? Math.round(Number(t.total_ms) / calls) : null,
          p50Ms: histogramPercentile(histogram, 0.5, maxMs),
          p95Ms: histogramPercentile(histogram, 0.95, maxMs),
          maxMs: calls > 0 ? maxMs : null,
          lastAt: Number(t.last_at),
        };
      }),
      decisions: Object.fromEntries(
        this.sql
          .exec<{ kind: string; count: number }>(`SELECT kind, count FROM decisions`)
          .toArray()
          .filter((d) => (DECISION_KINDS as readonly string[]).includes(d.kind))
          .map((d) => [d.kind, Number(d.count)]),
      ),
      pushesDropped: Number(this.sql.exec<{ count: number }>(`SELECT count FROM counters WHERE name = 'push_dropped'`).toArray()[0]?.count ?? 0),
      errors: errors.map((e) => ({
        at: Number(e.at),
        source: e.source as ErrorEvent["source"],
        code: String(e.code),
        message: String(e.message),
        requestId: nullable(e.request_id),
        turnId: nullable(e.turn_id),
        user: nullable(e.user),
        session: nullable(e.session),
        server: nullable(e.server),
        tool: nullable(e.tool),
      })),
    };
  }

  private recordCall(server: string, tool: string, ms: number, ok: boolean, at: number): void {
    const row = this.sql.exec<Row>(`SELECT histogram FROM tools WHERE server = ? AND tool = ?`, server, tool).toArray()[0];
    const histogram = addToHistogram(row ? (JSON.parse(String(row.histogram)) as Histogram) : emptyHistogram(), ms);
    this.sql.exec(
      `INSERT INTO tools (server, tool, calls, errors, total_ms, max_ms, histogram, last_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?)
       ON CONFLICT(server, tool) DO UPDATE SET calls = calls + 1, errors = errors + excluded.errors, total_ms = total_ms + excluded.total_ms,
         max_ms = MAX(max_ms, excluded.max_ms), histogram = excluded.histogram, last_at = excluded.last_at`,
      server,
      tool,
      ok ? 0 : 1,
      ms,
      ms,
      JSON.stringify(histogram),
      at,
    );
    if (!row) this.sql.exec(`DELETE FROM tools WHERE rowid IN (SELECT rowid FROM tools ORDER BY last_at DESC LIMIT -1 OFFSET ?)`, TOOLS_KEPT);
  }
}

const noIds = { requestId: null, turnId: null, user: null, session: null, server: null, tool: null } satisfies Partial<ErrorEvent>;

function nullable(value: SqlStorageValue | undefined): string | null {
  return value === null || value === undefined ? null : String(value);
}
