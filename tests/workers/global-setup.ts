// Starts the real servers the workerd tests reach over 127.0.0.1 and hands their
// URLs in through `provide` (workerd cannot spawn processes itself): server-everything
// over HTTP for the host test, the fake model server, and the bridge behind the
// chat sessions. vitest.config.ts turns the session values into Worker bindings.
import type { TestProject } from "vitest/node";
import { startFakeLlm } from "../fixtures/fake-gemini";
import { startEverythingHttp } from "../fixtures/http-servers";
import { startOAuthFixture } from "../fixtures/oauth-server";
import { startV2Server } from "../fixtures/v2-servers";
import { startTtlServer } from "../fixtures/ttl-servers";
import { startUrlServer } from "../fixtures/url-elicitation-servers";
import { startSessionServers } from "./session-servers";
import { startBridge } from "../fixtures/bridge";
import { startPushService } from "../fixtures/push-service";
import { repoRoot } from "../fixtures/servers";
import { join } from "node:path";
import { generateKeyPairSync } from "node:crypto";
import * as page from "../../scripts/build-page.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    everythingUrl: string;
    /** Fake Gemini + OpenAI-compatible server, scripted per API key (tests/fixtures/fake-llm-script.ts). */
    fakeLlmUrl: string;
    /** The GEMINI_API_KEY binding of the Worker under test: the fake's script key for session tests. */
    sessionLlmKey: string;
    bridgeUrl: string;
    bridgeToken: string;
    /** The folder server-filesystem serves behind the bridge (holds notes.txt and sub/). */
    fsRoot: string;
    mcpConfig: string;
    /** Bearer tokens of the Worker's users (AUTH_MODE=token), by name; fresh for each run. */
    testUsers: Record<"alice" | "bob" | "carol" | "dave" | "erin" | "frank", string>;
    /** The OAuth fixture (tests/fixtures/oauth-server.ts): `${oauthBase}/{realm}/mcp`. */
    oauthBase: string;
    /** The SDK's v2 server (tests/fixtures/v2-server.mjs): MCP 2026-07-28 only, and 2026 with the 2025 fallback. */
    v2ModernUrl: string;
    v2BothUrl: string;
    /** tests/fixtures/ttl-server.mjs: lists and reads with `ttlMs`/`cacheScope`, `${ttlServerBase}/t/{tag}/{ttlMs}/{scope}/mcp`. */
    ttlServerBase: string;
    /** tests/fixtures/url-elicitation-server.mjs: `${base}/mcp` (2026 only), `${base}/legacy` (2025), POST `${base}/complete`. */
    urlElicitationBase: string;
    /** A bridge of its own serving tests/fixtures/task-server.mjs as "tasks" (MCP Tasks), at a URL the Worker does not hold at 2025. */
    taskBridgeUrl: string;
    taskBridgeToken: string;
    /** The deployment's VAPID keys (made fresh for each run) and the test push service's control port (tests/fixtures/push-service.ts). */
    vapid: { publicKey: string; privateKey: string; subject: string };
    pushControlUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // wrangler.toml's assets directory is the built page: it must exist before workerd starts.
  if (page.isStale()) await page.build();
  const [everything, fakeLlm, session, oauth, v2Modern, v2Both, urlServer, ttl, taskBridge, pushService, vapid] = await Promise.all([
    startEverythingHttp("streamableHttp"),
    startFakeLlm(),
    startSessionServers(),
    startOAuthFixture(),
    startV2Server("modern"),
    startV2Server("both"),
    startUrlServer(),
    startTtlServer(),
    startBridge({ tasks: { command: process.execPath, args: [join(repoRoot, "tests", "fixtures", "task-server.mjs")] } }, ["--no-watch"]),
    startPushService(),
    makeVapidKeys(),
  ]);
  project.provide("vapid", vapid);
  project.provide("pushControlUrl", pushService.controlUrl);
  project.provide("taskBridgeUrl", taskBridge.url);
  project.provide("taskBridgeToken", taskBridge.token);
  project.provide("urlElicitationBase", urlServer.base);
  project.provide("ttlServerBase", ttl.base);
  project.provide("v2ModernUrl", v2Modern.url);
  project.provide("v2BothUrl", v2Both.url);
  project.provide("oauthBase", oauth.base);
  project.provide("everythingUrl", everything.url);
  project.provide("fakeLlmUrl", fakeLlm.url);
  project.provide("sessionLlmKey", "session-tests");
  project.provide("bridgeUrl", session.bridge.url);
  project.provide("bridgeToken", session.bridge.token);
  project.provide("fsRoot", session.fsRoot);
  project.provide("mcpConfig", session.mcpConfig);
  const token = () => crypto.randomUUID().replace(/-/g, "");
  project.provide("testUsers", { alice: token(), bob: token(), carol: token(), dave: token(), erin: token(), frank: token() });
  return async () => {
    await Promise.all([
      everything.stop(),
      fakeLlm.stop(),
      session.bridge.stop(),
      oauth.stop(),
      v2Modern.stop(),
      v2Both.stop(),
      urlServer.stop(),
      ttl.stop(),
      taskBridge.stop(),
      pushService.stop(),
    ]);
  };
}

/** A VAPID key pair as a deployment makes one: the raw public point and the private JWK `d`, base64url. */
async function makeVapidKeys(): Promise<{ publicKey: string; privateKey: string; subject: string }> {
  const jwk = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x ?? "", "base64url"), Buffer.from(jwk.y ?? "", "base64url")]);
  return { publicKey: point.toString("base64url"), privateKey: jwk.d ?? "", subject: "mailto:ops@edgehost.test" };
}
