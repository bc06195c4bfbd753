// One stdio MCP server process: spawn (optionally under Linux resource limits),
// newline-delimited JSON-RPC framing (as the SDK's stdio transport frames it),
// the initialize handshake, stderr capture, and a stop that escalates from
// SIGTERM to SIGKILL. It knows nothing about HTTP sessions: the proxy does.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { ClientCapabilities, Implementation, JSONRPCMessage, JSONRPCRequest, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { StdioServerConfig } from "@edgehost/shared/mcp-config/config";
import { errorMessage, type Logger } from "@edgehost/shared/logger";
import { LATEST_PROTOCOL_VERSION, isErrorResponse, parseMessage } from "./messages";
import { discoverProbe, NativeFace, nativeInfo, PROBE_MS } from "./native-face";

const STDERR_TAIL = 20;
/** The SDK's stdio limit (STDIO_DEFAULT_MAX_BUFFER_SIZE): a longer line cannot be a message a client would take. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;
// What a child inherits from the bridge's environment, as the SDK's stdio client
// does (sudo's list); the rest comes from mcp.json. Kept here rather than imported
// from the SDK's client/stdio module, which would load cross-spawn for six names.
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    // Exported shell functions are a known injection vector.
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return env;
}
// Ids the bridge uses for its own handshake; forwarded requests use positive integers.
const HANDSHAKE_ID = -1;
const PROBE_ID = -2;

export interface ChildInfo {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  /** It speaks MCP 2026-07-28 itself (answered the `server/discover` probe): 2026 requests pass through (native-face.ts). */
  native?: boolean;
}

export interface ChildOptions {
  /** Directory relative `command`/`args`/`cwd` are resolved from: the mcp.json's folder. */
  baseDir: string;
  logger: Logger;
  startupTimeoutMs: number;
  clientInfo: Implementation;
  clientCapabilities: ClientCapabilities;
  /** The W3C trace id of the request last forwarded to this child, if it carried one: its stderr lines name it. */
  trace?: () => string | undefined;
  /** False: open with `initialize` at once (an earlier child of this server died of the `server/discover` probe). */
  probe?: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when this process was stopped on purpose. */
  expected: boolean;
}

export class ChildProcess {
  info?: ChildInfo;
  onmessage?: (message: JSONRPCMessage) => void;
  onexit?: (exit: ExitInfo) => void;
  readonly startedAt = Date.now();

  private process?: ChildProcessWithoutNullStreams;
  /** What came after the last newline: the start of a message still arriving. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private readonly tail: string[] = [];
  private stopping = false;
  private exited?: Promise<ExitInfo>;
  /** Set for a child that speaks 2026 itself: what 2025 sessions send it is given the envelope. */
  private face?: NativeFace;
  /** True while the `server/discover` probe is unanswered: a child that exits now may not take it (child-keeper.ts). */
  probing = false;

  constructor(
    readonly config: StdioServerConfig,
    private readonly options: ChildOptions,
  ) {}

  get pid(): number | undefined {
    return this.process?.pid;
  }

  stderrTail(lines = 5): string {
    return this.tail.slice(-lines).join(" | ");
  }

  /** Spawns the process and completes initialize; rejects with the reason and the last stderr lines. */
  async start(): Promise<ChildInfo> {
    const { command, args } = this.commandLine();
    const child = spawn(command, args, {
      cwd: this.config.cwd ? resolvePath(this.options.baseDir, this.config.cwd) : this.options.baseDir,
      env: { ...inheritedEnv(), ...this.config.env },
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
    });
    this.process = child;
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        const exit = { code, signal, expected: this.stopping };
        resolve(exit);
        this.onexit?.(exit);
      });
    });
    child.stdout.on("data", (chunk: Buffer) => this.read(chunk));
    child.stderr.on("data", (chunk: Buffer) => this.captureStderr(chunk));
    // EPIPE when the child died with writes queued: the exit handler reports it.
    child.stdin.on("error", () => undefined);

    const spawned = new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not finish initialize within ${this.options.startupTimeoutMs} ms`)), this.options.startupTimeoutMs);
    });
    const died = this.exited.then((exit) => {
      throw new Error(`exited during startup (${describeExit(exit)})`);
    });
    try {
      await Promise.race([spawned, died, timeout]);
      this.info = await Promise.race([this.handshake(), died, timeout]);
      return this.info;
    } catch (error) {
      await this.stop(1_000);
      const tail = this.stderrTail();
      throw new Error(`${errorMessage(error)}${tail ? `; last stderr: ${tail}` : ""}`);
    } finally {
      clearTimeout(timer);
    }
  }

  send(message: JSONRPCMessage): boolean {
    return this.face ? this.face.send(message) : this.write(message);
  }

  private write(message: JSONRPCMessage): boolean {
    const stdin = this.process?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return false;
    try {
      stdin.write(`${JSON.stringify(message)}\n`);
    } catch {
      // Not serializable (e.g. nested too deep): the caller answers the request with an error.
      return false;
    }
    return true;
  }

  /** Why this process was killed by the bridge itself, if it was. */
  fatal?: string;

  /** Ends stdin and sends SIGTERM; SIGKILL after `timeoutMs`. Resolves with how it ended. */
  async stop(timeoutMs: number): Promise<ExitInfo & { killed: boolean }> {
    const child = this.process;
    if (!child || !this.exited) return { code: null, signal: null, expected: true, killed: false };
    this.stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return { ...(await this.exited), killed: false };
    child.stdin.end();
    child.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const forced = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(true);
      }, timeoutMs);
    });
    const killed = await Promise.race([this.exited.then(() => false), forced]);
    const exit = await this.exited;
    clearTimeout(timer);
    return { ...exit, killed };
  }

  /** The `server/discover` probe first (a child that speaks 2026 answers it), else the 2025 `initialize` handshake. */
  private async handshake(): Promise<ChildInfo> {
    const { clientCapabilities, clientInfo } = this.options;
    if (this.options.probe !== false) {
      this.probing = true;
      const answer = await this.ask(discoverProbe(PROBE_ID, clientCapabilities, clientInfo), PROBE_MS);
      this.probing = false;
      const native = answer && nativeInfo(answer, LATEST_PROTOCOL_VERSION);
      if (native) {
        this.face = new NativeFace(clientCapabilities, clientInfo, { write: (m) => this.write(m), emit: (m) => this.onmessage?.(m) });
        this.face.listen(native.capabilities);
        return { ...native, native: true };
      }
    }
    const params = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: clientCapabilities, clientInfo };
    const message = await this.ask({ jsonrpc: "2.0", id: HANDSHAKE_ID, method: "initialize", params });
    if (message && isErrorResponse(message)) throw new Error(`initialize failed: ${message.error.message}`);
    if (!message || !("result" in message)) throw new Error("initialize got no result");
    const result = message.result as unknown as ChildInfo;
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return {
      protocolVersion: result.protocolVersion,
      capabilities: result.capabilities ?? {},
      serverInfo: result.serverInfo,
      instructions: result.instructions,
    };
  }

  /** Sends a request of the bridge's own and resolves with the answer; undefined when none came within `timeoutMs`. */
  private ask(request: JSONRPCRequest, timeoutMs?: number): Promise<JSONRPCMessage | undefined> {
    return new Promise((resolve) => {
      const previous = this.onmessage;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (message: JSONRPCMessage | undefined) => {
        clearTimeout(timer);
        this.onmessage = previous;
        resolve(message);
      };
      this.onmessage = (message) => ("id" in message && message.id === request.id ? done(message) : previous?.(message));
      if (timeoutMs !== undefined) timer = setTimeout(() => done(undefined), timeoutMs);
      this.send(request);
    });
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const tail = chunk.subarray(start, newline);
      const line = this.partial.length > 0 ? Buffer.concat([...this.partial, tail]) : tail;
      this.partial = [];
      this.partialBytes = 0;
      this.line(line.toString("utf8").replace(/\r$/, ""));
      start = newline + 1;
    }
    if (start === chunk.length) return;
    // Kept as pieces, joined once the newline comes: a large message costs one copy.
    this.partial.push(chunk.subarray(start));
    this.partialBytes += chunk.length - start;
    if (this.partialBytes > MAX_LINE_BYTES) {
      // A single message over the SDK's 10 MiB line limit: the stream cannot be resynchronised,
      // so this child goes; its in-flight calls fail and it restarts on the next request.
      this.partial = [];
      this.partialBytes = 0;
      this.fatal = "sent a message larger than 10 MiB";
      this.options.logger.error("server message too large: restarting it", { server: this.config.name });
      this.process?.kill("SIGKILL");
    }
  }

  private line(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const message = parseMessage(value);
    if (message) return this.face ? this.face.receive(message) : this.onmessage?.(message);
    // A line that is not JSON-RPC (a stray console.log): skip it, keep the stream. Its text
    // is not logged: it may hold what the tool was working on.
    const what = value === undefined ? "not JSON" : "JSON, but not a JSON-RPC 2.0 message";
    this.options.logger.warn("server wrote a line that is not JSON-RPC", { server: this.config.name, error: what, bytes: text.length });
  }

  private captureStderr(chunk: Buffer): void {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      this.tail.push(line);
      if (this.tail.length > STDERR_TAIL) this.tail.shift();
      const trace = this.options.trace?.();
      this.options.logger.info("server stderr", { server: this.config.name, line, ...(trace ? { trace } : {}) });
    }
  }

  /** Wraps the command in `prlimit` when the config asks for resource limits. */
  private commandLine(): { command: string; args: string[] } {
    const { command, args, limits } = this.config;
    if (!limits || process.platform !== "linux") return { command, args };
    const wrapped: string[] = [];
    if (limits.memoryMb) wrapped.push(`--as=${limits.memoryMb * 1024 * 1024}`);
    if (limits.cpuSeconds) wrapped.push(`--cpu=${limits.cpuSeconds}`);
    return { command: "prlimit", args: [...wrapped, "--", command, ...args] };
  }
}

export function describeExit(exit: Pick<ExitInfo, "code" | "signal">): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function resolvePath(base: string, path: string): string {
  return path.startsWith("/") ? path : `${base.replace(/\/$/, "")}/${path}`;
}
