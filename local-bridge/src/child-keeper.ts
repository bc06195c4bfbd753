// The one child process behind a ServerProxy: started on first need, restarted after a
// crash once its backoff has passed (never in a loop), stopped with the bridge, and what
// /health says of it. What travels between the child and the sessions is the proxy's
// (proxy.ts); this file only keeps a child there to talk to.
import type { ClientCapabilities, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { backoffDelay } from "@edgehost/shared/backoff";
import type { StdioServerConfig } from "@edgehost/shared/mcp-config/config";
import { errorMessage, type Logger } from "@edgehost/shared/logger";
import type { ServerStats } from "@edgehost/shared/metrics";
import type { BridgeErrorData } from "@edgehost/shared/rpc";
import { ChildProcess, describeExit, type ChildOptions, type ExitInfo } from "./child";

export type ProxyState = "starting" | "ready" | "unavailable" | "stopped";

export interface ProxyOptions extends Omit<ChildOptions, "logger"> {
  logger: Logger;
  backoff: { initialMs: number; maxMs: number };
  now?: () => number;
  /** The one user of a per-user child (`"isolation": "user"`); absent: a child shared by everyone. */
  user?: string;
  /** Shared by a server's per-user children, so /metrics counts the server's calls once. */
  stats?: ServerStats;
}

/** Why a request found no running child; becomes a bridge error (rpc.ts) for the session. */
export class NoChild extends Error {
  constructor(
    readonly data: BridgeErrorData,
    message: string,
  ) {
    super(message);
  }
}

export abstract class ChildKeeper {
  state: ProxyState = "starting";
  /**
   * The trace id of the request last forwarded here (W3C `traceparent`, from the Worker's
   * turn). A child's stderr is not tied to a request: its lines name the latest trace,
   * which is the turn's while one turn at a time uses the child.
   */
  trace?: string;
  restarts = 0;
  lastError?: string;
  child?: ChildProcess;
  /** Told of every message a child sends, after the proxy has handled it (modern-task-child.ts watches tool list changes). */
  readonly observers = new Set<(message: JSONRPCMessage) => void>();

  private attempts = 0;
  /** Whether a starting child is probed with `server/discover` first (child.ts): not after one died of it. */
  private probe = true;
  private nextStartAt = 0;
  private launching?: Promise<ChildProcess>;
  protected readonly now: () => number;

  constructor(
    /** Replaced only by setRoots (a reload that changed nothing else). */
    public config: StdioServerConfig,
    protected readonly options: ProxyOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get name(): string {
    return this.config.name;
  }

  /** A message the child sent. */
  protected abstract fromChild(message: JSONRPCMessage): void;
  /** The client capabilities a child starting now is told of. */
  protected abstract childCapabilities(): ClientCapabilities;
  /** A (re)started child is ready. */
  protected abstract childReady(): void;
  /** The child exited: what was in flight fails with `data`. */
  protected abstract childGone(data: BridgeErrorData, message: string): void;

  /** First start: rejects with the reason (and stderr tail) so the bridge can refuse to start. */
  async start(): Promise<void> {
    const probing = this.probe;
    try {
      await this.launch();
    } catch (error) {
      // A 2025 server that died of the `server/discover` probe: once more, opening with initialize.
      if (!probing || this.probe) throw error;
      await this.launch();
    }
  }

  /** The running child, restarting a crashed one once its backoff has passed. */
  ensureChild(): Promise<ChildProcess> {
    if (this.state === "ready" && this.child) return Promise.resolve(this.child);
    if (this.launching) return this.launching;
    if (this.state === "stopped")
      return Promise.reject(new NoChild({ kind: "server_stopped", server: this.name, reason: "is stopped" }, `MCP server "${this.name}" is stopped`));
    const wait = this.nextStartAt - this.now();
    if (wait > 0) {
      const last = this.lastError ?? "not running";
      const next = `next restart in ${Math.ceil(wait / 100) / 10} s`;
      return Promise.reject(
        new NoChild(
          { kind: "server_unavailable", server: this.name, reason: `${last}; ${next}`, retryAfterMs: wait },
          `MCP server "${this.name}" is unavailable (${last}); ${next}`,
        ),
      );
    }
    this.restarts++;
    return this.launch().catch((error: unknown) => {
      const reason = `could not start: ${errorMessage(error)}`;
      throw new NoChild({ kind: "server_unavailable", server: this.name, reason, retryAfterMs: this.retryAfterMs() }, `MCP server "${this.name}" ${reason}`);
    });
  }

  /** Milliseconds until a crashed child may be started again. */
  protected retryAfterMs(): number {
    return Math.max(0, this.nextStartAt - this.now());
  }

  private launch(): Promise<ChildProcess> {
    const child = new ChildProcess(this.config, { ...this.options, clientCapabilities: this.childCapabilities(), trace: () => this.trace, probe: this.probe });
    child.onmessage = (message) => {
      this.fromChild(message);
      for (const observe of this.observers) observe(message);
    };
    this.state = "starting";
    const launching = child
      .start()
      .then(() => {
        child.onexit = (exit) => this.childExited(child, exit);
        this.child = child;
        this.state = "ready";
        this.attempts = 0;
        this.lastError = undefined;
        this.options.logger.info("server ready", { server: this.name, pid: child.pid });
        this.childReady();
        return child;
      })
      .catch((error: unknown) => {
        // A 2025 server that cannot take a request before initialize: the next start skips the probe.
        if (child.probing) this.probe = false;
        this.markUnavailable(errorMessage(error));
        throw error;
      })
      .finally(() => {
        this.launching = undefined;
      });
    this.launching = launching;
    return launching;
  }

  /**
   * New roots from a reload of mcp.json, for a server that had roots there before
   * (its child was started with the roots capability): the child is told the list
   * changed, and asks for it again, instead of being restarted.
   */
  setRoots(roots: NonNullable<StdioServerConfig["roots"]>): void {
    this.config = { ...this.config, roots };
    this.sendToChild({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  }

  private markUnavailable(reason: string): void {
    this.child = undefined;
    this.lastError = reason;
    this.nextStartAt = this.now() + backoffDelay(this.attempts, this.options.backoff);
    this.attempts++;
    if (this.state !== "stopped") this.state = "unavailable";
    this.options.logger.warn("server unavailable", { server: this.name, reason });
  }

  private childExited(child: ChildProcess, exit: ExitInfo): void {
    if (this.child !== child) return;
    const reason = exit.expected ? "stopped" : child.fatal ? `was restarted: it ${child.fatal}` : `crashed (${describeExit(exit)})`;
    if (!exit.expected) this.markUnavailable(`${reason}${child.stderrTail() ? `; last stderr: ${child.stderrTail(3)}` : ""}`);
    // In-flight calls fail at once rather than waiting for a timeout.
    const data: BridgeErrorData = exit.expected
      ? { kind: "server_stopped", server: this.name, reason: "was stopped" }
      : {
          kind: "server_crashed",
          server: this.name,
          reason: `${reason} while handling this request; it restarts on the next request`,
          retryAfterMs: this.retryAfterMs(),
        };
    this.childGone(data, `MCP server "${this.name}" ${data.reason}`);
  }

  protected sendToChild(message: JSONRPCMessage): boolean {
    return this.child?.send(message) ?? false;
  }

  protected async stopChild(timeoutMs: number): Promise<{ killed: boolean }> {
    const child = this.child ?? (await this.launching?.catch(() => undefined));
    if (!child) return { killed: false };
    const result = await child.stop(timeoutMs);
    this.options.logger.info("server stopped", { server: this.name, how: result.killed ? "SIGKILL" : describeExit(result) });
    return { killed: result.killed };
  }

  health(): Record<string, unknown> {
    return {
      state: this.state,
      pid: this.child?.pid ?? null,
      uptimeMs: this.child && this.state === "ready" ? this.now() - this.child.startedAt : 0,
      restarts: this.restarts,
      lastError: this.lastError ?? null,
    };
  }
}
