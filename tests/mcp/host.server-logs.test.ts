// A server's log lines reach the host's log on an MCP 2026-07-28 connection too. McpHost
// negotiates 2026 with the real bridge here (no remembered 2025 verdict, as a session
// would hold one), in front of the probe server, whose `log` tool writes "probe says hi"
// at info with `notifications/message`. A 2026 request gets log lines only when its
// `_meta` asks (io.modelcontextprotocol/logLevel), so without the host asking the line
// is lost; on a 2025 connection it comes on the session as before.
import { describe, expect, it } from "vitest";
import type { Logger, LogFields } from "../../src/shared/logger";
import { bridgedHost, heldAt2025 } from "../fixtures/host";
import { probeServerBin, stdioServer } from "../fixtures/servers";

/** The lines the host logged, in order. */
function recordingLogger(): { logger: Logger; lines: { level: string; msg: string; fields?: LogFields }[] } {
  const lines: { level: string; msg: string; fields?: LogFields }[] = [];
  const at = (level: string) => (msg: string, fields?: LogFields) => void lines.push({ level, msg, fields });
  return { logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") }, lines };
}

const serverLogs = (lines: ReturnType<typeof recordingLogger>["lines"]) => lines.filter((l) => l.msg === "server log").map((l) => [l.level, l.fields]);
const HI = { server: "probe", serverLevel: "info", logger: "probe", data: "probe says hi" };

describe("McpHost, a server's log lines on each MCP era", () => {
  it("logs the probe's line under its server on a 2026 connection, and on a 2025 one as before", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const { logger, lines } = recordingLogger();
      // The fixture's default negotiates (the bridge speaks 2026); heldAt2025 keeps the 2025 handshake.
      const held = era === "modern" ? {} : heldAt2025;
      const { host, config } = await bridgedHost([stdioServer("probe", [probeServerBin])], { logger, ...held });
      expect(await host.connect(config)).toEqual({ ready: ["probe"], failed: [] });
      expect(host.servers()[0]?.protocol).toBe(era === "modern" ? "2026-07-28" : "2025-11-25");
      await host.callTool("probe.log", {});
      expect(serverLogs(lines)).toEqual([["info", HI]]);
      await host.close();
    }
  });
});
