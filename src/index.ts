// Worker entry: the Hono app and the Durable Object classes wrangler binds.
// Every request passes `identify` (who is calling, or 401/503) and `sameOrigin`
// (no cross-site upgrade or state change) before any route sees it.
import { Hono } from "hono";
import { identify, type AppEnv } from "./identity/identify";
import { sameOrigin } from "./identity/same-origin";
import { api } from "./http/api";
import { auth } from "./http/auth";
import { RequestError } from "./shared/errors";
import { errorResponse } from "./http/errors";
import { myServers } from "./http/my-servers";
import { models } from "./http/models";
import { bootstrap } from "./http/bootstrap";
import { myProviders } from "./http/my-providers";
import { machineBridgeRoutes, machines } from "./http/machines";
import { oauth } from "./http/oauth";
import { sessions } from "./http/sessions";
import { uiResources } from "./http/ui-resources";
import { requestLog } from "./http/request-log";
import { myData } from "./http/my-data";
import { audit } from "./http/audit";
import { admin } from "./http/admin";
import { files } from "./http/files";
import { sessionFind } from "./http/session-find";
import { shares } from "./http/shares";
import { schedules } from "./http/schedules";
import { people } from "./http/people";
import { presets } from "./http/presets";
import { importRoutes } from "./http/import";
import { accountWrites } from "./http/account-writes";
import { connect, CONNECT_SIGNED_OUT } from "./http/connect";
import { connectedApps } from "./http/connected-apps";
import { withGateway } from "./gateway/auth-server";
import { pushAct, pushRoutes } from "./http/push";
import { rules } from "./http/rules";

export { ChatSession } from "./session/ChatSession";
export { UserAccount } from "./users/UserAccount";
export { SignInThrottle } from "./identity/SignInThrottle";
export { PairingCode } from "./machines/PairingCode";
export { Operations } from "./ops/Operations";
export { SharedConversation } from "./share/SharedConversation";
export { GatewayApp } from "./gateway/GatewayApp";
export type { Env } from "./config/env";

const app = new Hono<AppEnv>();

// First: every request, the bridge's included, gets a request id and its log line.
app.use("*", requestLog());

// The OAuth callback arrives cross-site without the (SameSite=Strict) login cookie: its GET only serves a page.
const publicOAuth = new Set(["/oauth/callback", "/oauth/client-metadata.json"]);
// A shared link opened signed out gets a page saying to sign in (src/http/shares.ts), never the snapshot.
const signInPage = (path: string) => path.startsWith("/share/");
// A bridge pairing or connecting has no user identity: its routes answer before identify (machines.ts).
app.route("/", machineBridgeRoutes);
app.use(
  "*",
  identify({
    optional: (c) =>
      c.req.path === "/auth/login" ||
      c.req.path === "/auth/logout" ||
      // A notification's action: its token is the credential (src/http/push.ts).
      (c.req.method === "POST" && c.req.path === "/push/act") ||
      CONNECT_SIGNED_OUT(c.req.method, c.req.path) ||
      (c.req.method === "GET" && (publicOAuth.has(c.req.path) || signInPage(c.req.path))),
  }),
);
app.use("*", sameOrigin());
// A write holds a lease on the user's account: refused while Delete my data runs, waited for by one that begins.
app.use("*", accountWrites());
app.route("/", myData);
app.route("/", audit);
app.route("/", files);
app.route("/", sessionFind);
app.route("/", shares);
app.route("/", schedules);
app.route("/", people);
app.route("/", presets);
app.route("/", importRoutes);
app.route("/", admin);
app.route("/api/my-servers", myServers);
app.route("/api/models", models);
app.route("/api/bootstrap", bootstrap);
app.route("/api/my-providers", myProviders);
app.route("/api/machines", machines);
app.route("/api/apps", connectedApps);
app.route("/api/push", pushRoutes);
app.route("/api/rules", rules);
app.route("/", pushAct);
app.route("/api", api);
app.route("/auth", auth);
app.route("/oauth", oauth);
app.route("/connect", connect);
app.route("/sessions", sessions);
app.route("/sessions", uiResources);
app.notFound((c) => errorResponse(c, new RequestError("not_found", `no route ${c.req.method} ${new URL(c.req.url).pathname}`)));
// Every refusal is thrown (RequestError or another typed error) and answered here, in one place.
app.onError((error, c) => errorResponse(c, error));

// /mcp and its OAuth authorization server in front of the app (src/gateway/auth-server.ts); MCP_GATEWAY=off: the app alone.
export default withGateway(app);
