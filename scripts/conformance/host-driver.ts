// McpHost as the client under test, as the Worker builds it (workerTransports, the
// host's own OAuth client) but in Node: the person's part is played here. When the
// server wants a sign-in the host says `auth_required`; this runs the same two legs
// the Worker's /oauth routes run (beginSignIn, then finishSignIn with the code the
// authorization server redirected with) and reconnects the server, as the page's
// "Sign in" does.
import type { Tool } from "@modelcontextprotocol/client";
import { McpHost } from "../../src/mcp/host";
import { challengeRecordingFetch } from "../../src/mcp/oauth/challenge-fetch";
import { machineOAuthProvider } from "../../src/mcp/oauth/machine-client";
import { EdgeOAuthProvider, type OAuthRecord, type OAuthStorage } from "../../src/mcp/oauth/provider";
import { beginSignIn, finishSignIn } from "../../src/mcp/oauth/sign-in";
import { workerTransports } from "../../src/mcp/transports";
import { parseMcpConfig, type RemoteServerConfig } from "../../src/shared/mcp-config/config";
import { authorize, REDIRECT_URI, type Driver, type DriverOptions } from "./driver";

const NAME = "conf";

/** The user account's OAuth record for the one server, kept in memory. */
function memoryStorage(): OAuthStorage & { record?: OAuthRecord } {
  const storage: OAuthStorage & { record?: OAuthRecord } = {
    load: async () => storage.record,
    save: async (patch) => {
      const next: Record<string, unknown> = { ...storage.record, ...patch };
      for (const [key, value] of Object.entries(patch)) if (value === undefined) delete next[key];
      storage.record = next as unknown as OAuthRecord;
    },
  };
  return storage;
}

/**
 * The server as a deployment's mcp.json would have it, read by the Worker's own parser: the client
 * credentials' secret or private key comes from the environment (`${env:NAME}`), as from a Worker secret.
 */
function serverConfig(options: DriverOptions): RemoteServerConfig {
  const env: Record<string, string> = { CONF_URL: options.url };
  const { preRegistered, clientCredentials: machine } = options.oauth ?? {};
  let oauth: Record<string, unknown> | undefined;
  if (machine) {
    Object.assign(env, { CONF_CLIENT_SECRET: machine.clientSecret ?? "", CONF_PRIVATE_KEY: machine.privateKeyPem ?? "" });
    oauth = {
      grant: "client_credentials",
      clientId: machine.clientId,
      ...(machine.privateKeyPem
        ? { privateKey: "${env:CONF_PRIVATE_KEY}", algorithm: machine.algorithm ?? "ES256" }
        : { clientSecret: "${env:CONF_CLIENT_SECRET}" }),
    };
  } else if (preRegistered) oauth = { ...preRegistered };
  const text = JSON.stringify({ servers: { [NAME]: { type: "http", url: "${CONF_URL}", timeout: 20, ...(oauth ? { oauth } : {}) } } });
  const server = parseMcpConfig(text, { env }).servers[0];
  if (server?.transport !== "http") throw new Error("the conformance server entry did not parse as an http server");
  return server;
}

export function hostDriver(options: DriverOptions): Driver {
  const storage = memoryStorage();
  const server = serverConfig(options);
  const host = new McpHost({
    transports: workerTransports({
      fetch: challengeRecordingFetch((challenge) => storage.save({ challenge })),
      // As src/users/oauth-client-storage.ts picks: the deployment's client credentials, else the person's sign-in.
      auth: options.oauth
        ? (s) =>
            machineOAuthProvider(s) ?? new EdgeOAuthProvider({ server: s.name, serverUrl: s.url, storage, preRegistered: s.oauth, mode: { kind: "session" } })
        : undefined,
    }),
    connectTimeoutMs: 20_000,
    // One try: a scenario counts what the client sends, and a retry would send it twice.
    retry: { initialMs: 0, maxMs: 0, tries: 1 },
  });
  if (options.elicit) {
    const elicit = options.elicit;
    host.onServerRequest({ elicitation: ({ params }) => elicit(params) });
  }

  const signIn = async (): Promise<void> => {
    let verifier = "";
    const url = await beginSignIn({
      server,
      storage,
      state: crypto.randomUUID(),
      redirectUri: REDIRECT_URI,
      clientMetadataUrl: options.oauth?.clientMetadataUrl,
      remembered: storage.record?.scope,
      granted: storage.record?.tokens?.scope,
      stored: storage.record?.challenge,
      saveVerifier: async (v) => void (verifier = v),
    });
    if (!url) return;
    const callback = await authorize(url);
    const code = callback.get("code");
    if (!code) throw new Error(`the authorization server sent no code (${callback.get("error") ?? "no error"})`);
    await finishSignIn({ server, storage, verifier, code, iss: callback.get("iss") ?? undefined });
  };

  const state = (): string | undefined => host.servers()[0]?.state;
  /** Runs `op`; a sign-in the server asked for is done (at most twice) and `op` runs again. */
  const withSignIn = async <T>(op: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        if (state() === "auth_required" && options.oauth && attempt < 3) throw new Error("sign-in required");
        return await op();
      } catch (error) {
        if (!options.oauth || attempt >= 2 || state() !== "auth_required") throw error;
        await signIn();
        await host.reconnectServer(NAME);
      }
    }
  };

  const ready = (): NonNullable<ReturnType<McpHost["listCapabilities"]>[number]> => {
    const view = host.listCapabilities().find((s) => s.name === NAME);
    if (!view) throw new Error(`server not ready: ${host.servers()[0]?.lastError ?? state()}`);
    return view;
  };

  return {
    connect: async () => {
      const report = await host.connect({ servers: [server] });
      if (report.failed.length && !(state() === "auth_required" && options.oauth)) throw new Error(`connect failed: ${report.failed[0]?.reason}`);
      // A server may ask again right after a sign-in (it moved to another authorization server, SEP-2352):
      // the page then shows "Sign in" again, and a person signs in again.
      for (let tries = 0; tries < 2 && state() === "auth_required" && options.oauth; tries++) {
        await signIn();
        await host.reconnectServer(NAME);
      }
      ready();
    },
    listTools: async () => withSignIn(async () => ready().tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema }) as Tool)),
    callTool: (name, args) => withSignIn(() => host.callTool(`${NAME}.${name}`, args)),
    listResources: async () => ready().resources,
    readResource: (uri) => host.readResource(uri, { server: NAME, bypassCache: true }),
    listPrompts: async () => ready().prompts,
    getPrompt: (name) => host.getPrompt(`${NAME}.${name}`, {}, { bypassCache: true }),
    close: () => host.close(),
  };
}
