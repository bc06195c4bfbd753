// 2025 Streamable HTTP at /mcp, sessionful: an initialize opens a session (its own
// `Server` over the SDK's web-standard transport, held in the app object), later requests
// name it by Mcp-Session-Id. Sessions live in memory only: at most MAX_SESSIONS per app
// (the longest idle one closes for a new one), closed after IDLE_MS without a request; an
// id this object does not hold (another app's, or from before an eviction) is answered
// 404 so the client initializes again, as the spec says.
import type { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { RPC } from "../shared/rpc";
import type { ServerLib } from "./server-lib";
import { type StreamWatch, watchedBody } from "./stream-watch";

const MAX_SESSIONS = 16;
const IDLE_MS = 30 * 60_000;
const SESSION_HEADER = "mcp-session-id";

interface LegacySession {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
}

export class LegacyLane {
  private readonly sessions = new Map<string, LegacySession>();

  constructor(
    private readonly lib: ServerLib,
    private readonly surface: () => Promise<Server>,
    private readonly watch: StreamWatch,
  ) {}

  async handle(request: Request): Promise<Response> {
    const now = Date.now();
    this.closeIdle(now);
    const id = request.headers.get(SESSION_HEADER);
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session) return sessionNotFound();
      session.lastUsed = now;
      const response = await session.transport.handleRequest(request);
      // The session's GET stream carries its list_changed: the app watches the person's servers while it is open.
      if (request.method !== "GET" || !response.ok || !response.body) return response;
      return new Response(watchedBody(response.body, this.watch), response);
    }
    // No session named: only an initialize may come this way (the transport refuses anything else).
    const server = await this.surface();
    const session: LegacySession = {
      server,
      lastUsed: now,
      transport: new this.lib.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (opened) => {
          this.makeRoom();
          this.sessions.set(opened, session);
        },
        onsessionclosed: (closed) => void this.sessions.delete(closed),
      }),
    };
    await server.connect(session.transport);
    const response = await session.transport.handleRequest(request);
    // A request that opened no session leaves nothing behind.
    if (session.transport.sessionId === undefined) void server.close().catch(() => undefined);
    return response;
  }

  /** The live sessions' servers, for list_changed. */
  servers(): Server[] {
    return [...this.sessions.values()].map((s) => s.server);
  }

  async close(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.server.close().catch(() => undefined)));
  }

  private closeIdle(now: number): void {
    for (const [id, session] of this.sessions) {
      if (now - session.lastUsed > IDLE_MS) this.drop(id, session);
    }
  }

  private makeRoom(): void {
    while (this.sessions.size >= MAX_SESSIONS) {
      let oldest: [string, LegacySession] | undefined;
      for (const entry of this.sessions) if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
      if (!oldest) return;
      this.drop(...oldest);
    }
  }

  private drop(id: string, session: LegacySession): void {
    this.sessions.delete(id);
    void session.server.close().catch(() => undefined);
  }
}

function sessionNotFound(): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: RPC.sessionNotFound, message: "Session not found: initialize again" } }, { status: 404 });
}
