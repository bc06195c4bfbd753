// The Content-Security-Policy an MCP App's document is served with. It is sent as an
// HTTP header (an app cannot remove or loosen it, as it could edit a <meta> of its
// own document) and carries `sandbox allow-scripts`, so the document has an opaque
// origin even when opened outside the page's sandboxed iframe: it can never read
// this origin's cookies, storage or pages. By default an app may run its own inline
// code and styles and load nothing from anywhere; the domains its resource declares
// (`_meta.ui.csp`, checked in ../mcp/app-ui.ts) open exactly their directives. No
// 'self': to an app, this origin is a foreign one.
import type { AppCsp } from "../mcp/app-ui";

const list = (domains: string[] | undefined, fallback = "'none'") => (domains && domains.length > 0 ? domains.join(" ") : fallback);

export function appCsp(csp: AppCsp): string {
  const resources = csp.resourceDomains ?? [];
  const withResources = (base: string) => [base, ...resources].join(" ");
  return [
    "sandbox allow-scripts",
    "default-src 'none'",
    withResources("script-src 'unsafe-inline'"),
    withResources("style-src 'unsafe-inline'"),
    withResources("img-src data: blob:"),
    withResources("font-src data:"),
    withResources("media-src data: blob:"),
    `connect-src ${list(csp.connectDomains)}`,
    `frame-src ${list(csp.frameDomains)}`,
    `base-uri ${list(csp.baseUriDomains)}`,
    "worker-src 'none'",
    "object-src 'none'",
    "form-action 'none'",
    // Only this host's page may frame an app (no other site can embed it to trick a user).
    "frame-ancestors 'self'",
  ].join("; ");
}
