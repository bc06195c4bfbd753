// Transports for the host running in Node: stdio children plus the remote ones.
// Keeps the tail of each child's stderr so a failed start can show why.
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StdioServerConfig } from "../shared/mcp-config/config";
import type { Logger } from "../shared/logger";
import { remoteTransports, type TransportCandidate, type TransportFactory } from "./transports";

const TAIL_LINES = 20;

export interface NodeTransportOptions {
  logger?: Logger;
}

export function nodeTransports(options: NodeTransportOptions = {}): TransportFactory {
  return (server) => (server.transport === "stdio" ? [stdioCandidate(server, options)] : remoteTransports(server));
}

export function stdioCandidate(server: StdioServerConfig, options: NodeTransportOptions): TransportCandidate {
  return {
    kind: "stdio",
    create: () => {
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args,
        env: server.env,
        cwd: server.cwd,
        stderr: "pipe",
      });
      const tail: string[] = [];
      let partial = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        const lines = (partial + chunk.toString("utf8")).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) {
          if (!line) continue;
          tail.push(line);
          if (tail.length > TAIL_LINES) tail.shift();
          options.logger?.debug("server stderr", { server: server.name, line });
        }
      });
      return {
        kind: "stdio",
        transport,
        stderrTail: () => [...tail, partial].filter(Boolean).join("\n"),
        pid: () => transport.pid,
      };
    },
  };
}
