// What the chat-session tests in workerd talk to: the real bridge (CLI) serving
// server-filesystem on a temp folder and server-everything, plus the mcp.json the
// Worker gets as MCP_CONFIG (stdio entries reach it through the bridge). The bridge
// also runs ext-apps' example app server and tests/fixtures/csp-app-server.mjs, which MCP_CONFIG leaves out: the MCP Apps
// tests add it as a user's own server (the bridge's URL), so other tests' sessions
// never see it.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBridge, type RunningBridge } from "../fixtures/bridge";
import { basicAppBin, everythingBin, filesystemBin, repoRoot } from "../fixtures/servers";

export interface SessionServers {
  bridge: RunningBridge;
  fsRoot: string;
  mcpConfig: string;
}

/** The workerd project's users (global-setup.ts testUsers). */
const TEST_USERS = ["alice", "bob", "carol", "dave"];

export async function startSessionServers(): Promise<SessionServers> {
  const fsRoot = mkdtempSync(join(tmpdir(), "session-fs-"));
  writeFileSync(join(fsRoot, "notes.txt"), "remember the milk\n");
  mkdirSync(join(fsRoot, "sub"));
  const servers = {
    filesystem: { command: process.execPath, args: [filesystemBin, fsRoot] },
    everything: { command: process.execPath, args: [everythingBin, "stdio"] },
  };
  const bridge = await startBridge({
    ...servers,
    apps: { command: process.execPath, args: [basicAppBin, "--stdio"] },
    isolated: { ...servers.everything, isolation: "user" },
    probe: {
      command: process.execPath,
      args: [join(repoRoot, "tests", "fixtures", "csp-app-server.mjs")],
      env: { CSP_APP_ALLOWED: "https://cdn.example.com" },
    },
  });
  const mcpConfig = JSON.stringify({
    servers: {
      // AUTH_MODE=token: a stdio server reaches only the users it names (src/servers/audience.ts).
      filesystem: { ...servers.filesystem, users: TEST_USERS, alwaysAllow: ["list_directory", "read_text_file", "list_allowed_directories"] },
      everything: {
        ...servers.everything,
        users: TEST_USERS,
        alwaysAllow: ["get-sum", "trigger-long-running-operation", "trigger-sampling-request", "trigger-elicitation-request"],
      },
      // One child per user at the bridge, and for erin only: tests/workers/http/bridge-users.test.ts
      // tells from the bridge's child count that the Worker named her on every request.
      // Never offered at /mcp (tests/workers/gateway/sdk-client.test.ts): erin's chats have it, her connected apps do not.
      isolated: { ...servers.everything, isolation: "user", users: ["erin"], alwaysAllow: ["echo"], gateway: false },
    },
  });
  return { bridge, fsRoot, mcpConfig };
}
