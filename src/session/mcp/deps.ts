// What a session's MCP side is given by the session (session-parts.ts wires it) and
// the shapes it hands back: the owner's servers, the account's discovery rows, the
// server rows the page shows.
import type { ModelPreferences, OAuthClientProvider } from "@modelcontextprotocol/client";
import type { RegistryPick } from "../../orchestrator/sampling";
import type { Approvals, SettingsStore } from "../../approval/approvals";
import type { Settings } from "../../config/settings";
import type { LlmProvider } from "../../llm/provider";
import type { RemoteServerConfig, ServerConfig } from "../../shared/mcp-config/config";
import type { Logger } from "../../shared/logger";
import type { ToolCallRecord } from "../../mcp/host";
import type { ServerMessage } from "../../protocol/messages";
import type { MachineView } from "../../machines/machine-store";
import type { StoredChallenge } from "../../mcp/oauth/provider";
import type { Audience } from "../../servers/audience";
import type { OwnerDiscoveryRow } from "../../users/owner-discovery";

export type ServerStatusView = Extract<ServerMessage, { type: "servers" }>["servers"][number];

/** The owner's runtime servers (src/users/user-servers.ts), and a version that changes with them; no list when the version is the one asked about. */
export interface UserServers {
  version: string;
  servers?: RemoteServerConfig[];
  /** The owner's paired machines (src/servers/machines.ts makes their servers). */
  machines?: MachineView[];
}

export interface SessionMcpDeps {
  /** The session's logger: the host logs servers coming and going, and failed calls. */
  logger?: Logger;
  env: Record<string, unknown>;
  userServers: (known?: string) => Promise<UserServers>;
  settings: Settings;
  store: SettingsStore;
  approvals: Approvals;
  /** Called when server state or tools changed (after the first connect too). */
  changed: () => void;
  notice: (text: string) => void;
  /** The session's model, for servers' sampling requests. */
  provider: () => Promise<LlmProvider | undefined>;
  /** Which model of the session's registry answers a sampling request (session-model.ts). */
  samplingModel?: (preferences: ModelPreferences | undefined, listed: readonly string[]) => Promise<RegistryPick>;
  /** Model tokens a sampling answer cost, counted into the owner's daily budget; ends the answer's `hold`. */
  used?: (tokens: number, hold: string) => Promise<void>;
  /** Why servers' sampling requests are refused outright (an app at /mcp the person did not let spend their budget); undefined: asked as usual. */
  samplingBlocked?: () => string | undefined;
  /** Holds a sampling answer's worst case (`hold` names it); why it may not be answered now (the budget is used up or held). */
  samplingRefusal?: (hold: string, tokens: number) => Promise<string | undefined>;
  /**
   * Who approves a sampling request: by default the person, asked through `approvals`. An app at
   * /mcp has no page to ask in; the person's "may spend my model budget" at consent is its answer.
   */
  approveSampling?: (server: string, summary: string, signal: AbortSignal) => Promise<boolean>;
  /** The owner's OAuth client for a remote server (src/users/oauth-client-storage.ts); bridge-routed servers never get one. */
  oauth?: (server: RemoteServerConfig, outbound?: typeof fetch) => OAuthClientProvider | undefined;
  /** Why a runtime server's URL may not be connected to here (src/servers/url-policy.ts), even one stored earlier. */
  refuseUrl?: (url: string) => string | undefined;
  /** Which of the deployment's servers this side may use at all (an app at /mcp: not mcp.json's `"gateway": false`); absent: all. */
  offered?: (server: ServerConfig) => boolean;
  /** The owner as the deployment knows them, for mcp.json's audience rule (src/servers/audience.ts). */
  audience?: () => Audience;
  /** Keeps a server's OAuth challenge for the owner's next sign-in to it (src/mcp/oauth/challenge-fetch.ts). */
  recordChallenge?: (server: RemoteServerConfig, challenge: StoredChallenge) => Promise<void>;
  /** The fetch that reaches the owner's paired machines through their account. */
  machineFetch?: typeof fetch;
  /** The fetch for the owner's own servers: redirects followed by hand, each hop checked (src/servers/guarded-fetch.ts). */
  outbound?: typeof fetch;
  /** Told of each tool call that reached a server (the operator's metrics, src/session/operations-report.ts). */
  toolCalled?: (call: ToolCallRecord) => void;
  /** What the owner's servers offered in their other sessions (src/users/owner-discovery.ts). */
  ownerDiscovery?: OwnerDiscoveryPort;
}

/** Rows are discovery-cache.ts's JSON text; the account keeps them as given. */
export interface OwnerDiscoveryPort {
  read(wanted: { server: string; key: string }[]): Promise<OwnerDiscoveryRow[]>;
  keep(rows: OwnerDiscoveryRow[]): Promise<void>;
}
