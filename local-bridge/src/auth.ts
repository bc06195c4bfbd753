// Who may talk to the bridge: a bearer token on every route (an open /health says
// only ok or not), and a Host / Origin allow-list so a web page cannot reach it
// through DNS rebinding.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export interface AccessPolicy {
  token: string;
  /** Host header values accepted, with port (e.g. `127.0.0.1:8808`). */
  allowedHosts: Set<string>;
  /** Origin header values accepted when a request carries one. */
  allowedOrigins: Set<string>;
}

export function defaultHosts(port: number, extra: string[] = []): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...extra.map((h) => h.toLowerCase())]);
}

export function defaultOrigins(port: number, extra: string[] = []): Set<string> {
  // The bridge's own origin (a browser-like client on the bridge's page or a tool sending
  // Origin on loopback), and the page served by `wrangler dev`; a Worker's own fetch
  // sends no Origin at all. Origins are scheme://host:port, so a page on another port
  // of localhost is still foreign.
  const own = [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];
  return new Set([...own, "http://localhost:8787", "http://127.0.0.1:8787", ...extra]);
}

export type AccessDenial = { status: 401 | 403; message: string } | undefined;

export function checkOrigin(req: Pick<IncomingMessage, "headers">, policy: AccessPolicy): AccessDenial {
  const host = (req.headers.host ?? "").toLowerCase();
  if (!policy.allowedHosts.has(host)) return { status: 403, message: `Host "${host}" is not allowed (add it with --allow-host)` };
  const origin = req.headers.origin;
  if (origin !== undefined && !policy.allowedOrigins.has(origin)) {
    return { status: 403, message: `Origin "${origin}" is not allowed (add it with --allow-origin)` };
  }
  return undefined;
}

export function checkToken(req: Pick<IncomingMessage, "headers">, policy: AccessPolicy): AccessDenial {
  const header = req.headers.authorization ?? "";
  const presented = header.startsWith("Bearer ") ? header.slice(7) : "";
  if (!presented) return { status: 401, message: "missing bearer token (Authorization: Bearer <BRIDGE_TOKEN>)" };
  const a = Buffer.from(presented);
  const b = Buffer.from(policy.token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { status: 401, message: "wrong bearer token" };
  return undefined;
}
