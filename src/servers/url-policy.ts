// Which addresses a user's own (runtime) server may have in a deployed Worker: not this
// machine's loopback, not private, link-local (cloud metadata lives there), CGNAT,
// unique-local or unspecified addresses, and not the Worker's own host. Otherwise a
// user could make the Worker fetch the inspector port, a model endpoint's control port,
// the Worker itself or an intranet service, and read what it answers. The check is on
// the URL's literal host as WHATWG URL parsing normalizes it (decimal, octal and hex
// IPv4 forms, IPv4-mapped IPv6), and on names that only a local resolver answers: a
// single label (`intranet`, `nas`) and names under `localhost`, `local`, `internal`,
// `home.arpa`, `lan` and the like. A Worker cannot resolve a name before fetching it;
// on Cloudflare's network a public name that resolves to a private address is not
// connected to (docs/deploying.md says what Cloudflare refuses on its own). Every hop
// of a redirect is checked again (guarded-fetch.ts).
// `ALLOW_PRIVATE_SERVER_URLS=true` lifts it for intranet deployments and local tests.

export interface UrlPolicy {
  /** False on loopback development (`npm run dev`), where local servers are the point. */
  deployed: boolean;
  allowPrivate: boolean;
  /** The Worker's own host name, when known (the request's). */
  workerHost?: string;
}

function ipv4(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : undefined;
}

function ipv4Rule([a = 0, b = 0]: number[]): string | undefined {
  if (a === 127) return "loopback addresses (127.0.0.0/8)";
  if (a === 10) return "private addresses (10.0.0.0/8)";
  if (a === 172 && b >= 16 && b <= 31) return "private addresses (172.16.0.0/12)";
  if (a === 192 && b === 168) return "private addresses (192.168.0.0/16)";
  if (a === 169 && b === 254) return "link-local addresses (169.254.0.0/16, where cloud metadata answers)";
  if (a === 100 && b >= 64 && b <= 127) return "shared addresses (100.64.0.0/10)";
  if (a === 0) return "unspecified addresses (0.0.0.0/8)";
  return undefined;
}

/** An IPv4 address hidden in an IPv6 one (`::ffff:7f00:1`, `::7f00:1`), as URL parsing writes it. */
function embeddedIpv4(host: string): number[] | undefined {
  const match = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!match) return undefined;
  const high = parseInt(match[1] as string, 16);
  const low = parseInt(match[2] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255];
}

function ipv6Rule(host: string): string | undefined {
  if (host === "::1") return "loopback addresses (::1)";
  if (host === "::") return "unspecified addresses (::)";
  const embedded = embeddedIpv4(host);
  if (embedded) return ipv4Rule(embedded) ?? undefined;
  if (/^f[cd][0-9a-f]{2}:/.test(host)) return "unique-local addresses (fc00::/7)";
  if (/^fe[89ab][0-9a-f]:/.test(host)) return "link-local addresses (fe80::/10)";
  return undefined;
}

/** Suffixes only a local network's resolver answers (RFC 6761/6762/8375, and common private zones). */
const LOCAL_ZONES = ["localhost", "local", "localdomain", "internal", "intranet", "home.arpa", "home", "lan", "corp", "private"];

function nameRule(host: string): string | undefined {
  if (host === "localhost" || host.endsWith(".localhost")) return "localhost";
  if (!host.includes(".")) return "single-label host names (resolved only on a local network)";
  const zone = LOCAL_ZONES.find((z) => host === z || host.endsWith(`.${z}`));
  return zone ? `names under .${zone} (resolved only on a local network)` : undefined;
}

/** Why `url` may not be a runtime server's address here; undefined when it may. */
export function serverUrlRefusal(url: string, policy: UrlPolicy): string | undefined {
  if (!policy.deployed || policy.allowPrivate) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // not a URL at all: the entry's own validation says so
  }
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "");
  let rule: string | undefined;
  if (policy.workerHost && host === policy.workerHost.toLowerCase()) rule = "this Worker's own address";
  else if (host.startsWith("[")) rule = ipv6Rule(host.slice(1, -1));
  else {
    const v4 = ipv4(host);
    rule = v4 ? ipv4Rule(v4) : nameRule(host);
  }
  return rule ? `${parsed.origin}: ${rule} cannot be reached from a deployed Worker (a server must have a public address)` : undefined;
}
