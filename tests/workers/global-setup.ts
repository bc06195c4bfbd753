// Starts the real servers the workerd tests reach over 127.0.0.1 and hands their
// URLs in through `provide` (workerd cannot spawn processes itself): server-everything
// over HTTP for the host test, the fake model server, and the bridge behind the
// chat sessions. vitest.config.ts turns the session values into Worker bindings.
import type { TestProject } from "vitest/node";
import { startFakeLlm } from "../fixtures/fake-gemini";
import { startEverythingHttp } from "../fixtures/http-servers";
import { startOAuthFixture } from "../fixtures/oauth-server";
import { startSessionServers } from "./session-servers";

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
    testUsers: Record<"alice" | "bob" | "carol" | "dave" | "erin", string>;
    /** The OAuth fixture (tests/fixtures/oauth-server.ts): `${oauthBase}/{realm}/mcp`. */
    oauthBase: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [everything, fakeLlm, session, oauth] = await Promise.all([
    startEverythingHttp("streamableHttp"),
    startFakeLlm(),
    startSessionServers(),
    startOAuthFixture(),
  ]);
  project.provide("oauthBase", oauth.base);
  project.provide("everythingUrl", everything.url);
  project.provide("fakeLlmUrl", fakeLlm.url);
  project.provide("sessionLlmKey", "session-tests");
  project.provide("bridgeUrl", session.bridge.url);
  project.provide("bridgeToken", session.bridge.token);
  project.provide("fsRoot", session.fsRoot);
  project.provide("mcpConfig", session.mcpConfig);
  const token = () => crypto.randomUUID().replace(/-/g, "");
  project.provide("testUsers", { alice: token(), bob: token(), carol: token(), dave: token(), erin: token() });
  return async () => {
    await Promise.all([everything.stop(), fakeLlm.stop(), session.bridge.stop(), oauth.stop()]);
  };
}
