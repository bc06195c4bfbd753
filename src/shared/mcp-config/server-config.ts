// The servers mcp.json describes, as the loader (config.ts) hands them on: one shape per
// transport with the keys they share. Types only; config.ts re-exports them.
import type { OAuthClientConfig } from "./oauth-config";

export type { OAuthClientConfig };

interface CommonServerConfig {
  name: string;
  disabled: boolean;
  timeoutMs: number;
  alwaysAllow: string[];
  dependencies: string[];
  /** Undefined means all tools. */
  includeTools?: string[];
  excludeTools: string[];
  /** MCP roots offered to this server (`roots/list`); absent: the roots capability is not advertised to it. */
  roots?: RootConfig[];
  /**
   * Who gets this server in a multi-user deployment (emails or token names, as the user is
   * known); absent: everyone for a remote server, nobody for a stdio one (src/servers/audience.ts).
   */
  users?: string[];
  /** false: never offered at /mcp (src/gateway/), though its users' chats still have it; absent: offered. */
  gateway?: boolean;
}
export interface RootConfig {
  uri: string;
  name?: string;
}
export interface StdioServerConfig extends CommonServerConfig {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Optional Linux resource limits, positive integers. */
  limits?: { memoryMb?: number; cpuSeconds?: number };
  /** "user": one child per user the bridge serves (server requests then never cross users); default one shared child. */
  isolation?: "user";
}
export interface RemoteServerConfig extends CommonServerConfig {
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  /** How a token is got (oauth-config.ts): a pre-registered client for a person's sign-in, or the deployment's client credentials. */
  oauth?: OAuthClientConfig;
}
export type ServerConfig = StdioServerConfig | RemoteServerConfig;
/** Servers in file order, disabled ones included (`disabled: true`). */
export interface McpConfig {
  servers: ServerConfig[];
}
