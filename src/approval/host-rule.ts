// "when `url` is on example.com": a URL argument's host against a rule's host, judged on the
// WHATWG-parsed URL (the same parser fetch uses), never on the text: `%` in a host is decoded,
// IDN becomes punycode, case is folded, `https://example.com@evil.com` is evil.com.
// Conservative, like path rules: anything unusual means "ask" (docs/rules.md).

export type Scheme = "https" | "http";

export interface HostPattern {
  /** The host, lower-case and punycode (or an IP literal, `[…]` for IPv6). */
  host: string;
  /** `*.host`: subdomains only, never the host itself (list the apex as a rule of its own). */
  subdomains: boolean;
}

export type HostResult = { ok: true; pattern: HostPattern } | { ok: false; why: string };

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function isIp(host: string): boolean {
  return IPV4.test(host) || host.startsWith("[");
}

function parse(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** A rule's host: `example.com`, `*.example.com`, `bücher.de`, `192.0.2.1`, `[2001:db8::1]`; nothing else. */
export function normaliseHost(value: unknown): HostResult {
  if (typeof value !== "string" || value.length === 0 || value.length > 253) return { ok: false, why: "not a host name" };
  const subdomains = value.startsWith("*.");
  const bare = subdomains ? value.slice(2) : value;
  if (/[/@?#:\\\s]/.test(bare.replace(/^\[[0-9a-fA-F:.]+\]$/, ""))) return { ok: false, why: "a host only: no scheme, port, path or user" };
  if (bare.endsWith(".")) return { ok: false, why: "no trailing dot" };
  const url = parse(`https://${bare}/`);
  if (!url || url.hostname === "" || url.port !== "" || url.username !== "" || url.pathname !== "/") return { ok: false, why: "not a host name" };
  if (subdomains && isIp(url.hostname)) return { ok: false, why: "an IP address has no subdomains" };
  if (!subdomains && !isIp(url.hostname) && !url.hostname.includes(".")) return { ok: false, why: "a host with a domain, such as example.com" };
  return { ok: true, pattern: { host: url.hostname, subdomains } };
}

export function hostText(pattern: HostPattern): string {
  return pattern.subdomains ? `*.${pattern.host}` : pattern.host;
}

/** True when `value` is an http(s) URL of an allowed scheme, on the pattern's host, with nothing unusual about it. */
export function urlOnHost(pattern: HostPattern, schemes: readonly Scheme[], value: unknown): boolean {
  if (typeof value !== "string" || value.length > 8192) return false;
  const url = parse(value);
  if (!url) return false;
  const scheme = url.protocol.slice(0, -1);
  if (!(schemes as readonly string[]).includes(scheme)) return false;
  // Credentials in a URL are a classic way to dress one host as another; the default port only.
  if (url.username !== "" || url.password !== "" || url.port !== "") return false;
  const host = url.hostname;
  if (host.endsWith(".")) return false;
  if (pattern.subdomains) return !isIp(host) && host.endsWith(`.${pattern.host}`);
  return host === pattern.host;
}
