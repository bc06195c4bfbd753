// What an outside service said may reach a page, an answer or a log only as a short excerpt
// with every secret we sent it taken out. A model provider, a server, an authorization
// server or anything answering at a user's address can echo the request back: the key as
// sent, JSON-escaped inside an error object (a key with `"` or `\`), URL-encoded in a
// quoted URL, or base64 inside a quoted `Authorization: Basic` header. Every upstream
// error text goes through here (provider errors, /test answers, OAuth failures).

export const SECRET_MASK = "••••••";
/** Shorter values are not treated as secrets: masking "ab" would mangle every message. */
const MIN_SECRET = 4;
/** How much of an upstream text may be quoted. */
export const EXCERPT_CHARS = 160;

const utf8Base64 = (text: string) => btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(""));

/** The values to look for when `value` was sent: itself, a scheme's token (`Bearer x`), a Basic header's user and password. */
export function secretsOf(value: string | undefined): string[] {
  if (!value) return [];
  const found = [value];
  const match = /^(\S+)\s+(\S+)$/.exec(value.trim());
  if (match?.[2]) {
    found.push(match[2]);
    if (match[1]?.toLowerCase() === "basic") {
      const decoded = decodeBase64(match[2]);
      const colon = decoded?.indexOf(":") ?? -1;
      if (decoded && colon >= 0) found.push(decoded.slice(0, colon), decoded.slice(colon + 1));
    }
  }
  return found.filter((s) => s.length >= MIN_SECRET);
}

/** Each literal form `secret` can come back in. */
function forms(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  const base64 = utf8Base64(secret);
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encoded,
    encoded.replace(/%20/g, "+"),
    encodeURI(secret),
    base64,
    base64.replace(/=+$/, ""),
    base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
  ];
}

function decodeBase64(text: string): string | undefined {
  const normal = text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const padded = normal + "=".repeat((4 - (normal.length % 4)) % 4);
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** A base64 run that decodes (at any of the four alignments) to text holding a secret: `user:key` and the like. */
function hidesSecret(run: string, secrets: readonly string[]): boolean {
  for (let offset = 0; offset < 4; offset++) {
    const decoded = decodeBase64(run.slice(offset, offset + Math.floor((run.length - offset) / 4) * 4));
    if (decoded && secrets.some((secret) => forms(secret).some((form) => decoded.includes(form)))) return true;
  }
  return false;
}

/** `text` with every form of every secret (see the top of this file) replaced by the mask. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  const kept = secrets.filter((s) => s.length >= MIN_SECRET);
  if (kept.length === 0 || text.length === 0) return text;
  let out = text;
  // Longest first, so a secret that contains another is taken out whole.
  const all = [...new Set(kept.flatMap(forms))].filter((f) => f.length >= MIN_SECRET).sort((a, b) => b.length - a.length);
  for (const form of all) out = out.split(form).join(SECRET_MASK);
  return out.replace(/[A-Za-z0-9+/_-]{8,}={0,2}/g, (run) => (hidesSecret(run, kept) ? SECRET_MASK : run));
}

/**
 * At most `max` characters of an upstream text, one line, secrets taken out; nothing of an
 * HTML page (a proxy's or a framework's error page says nothing a person needs, and may
 * hold anything).
 */
export function upstreamExcerpt(text: string, secrets: readonly string[] = [], max = EXCERPT_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (/^<(!doctype|html|head|body|\?xml)\b/i.test(flat)) return "";
  const clean = scrubSecrets(flat, secrets);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
