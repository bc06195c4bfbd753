// The deployment's VAPID keys (RFC 8292), as three variables: the public key as the browser's
// `applicationServerKey` wants it (base64url, an uncompressed P-256 point, 65 bytes), the
// private key as the JWK `d` (base64url, 32 bytes), and the subject push services may write
// to (mailto: or https:). Checked here by shape, and by signing a probe with the private key
// and verifying it with the public one, so a pasted pair that does not belong together turns
// push off with a reason instead of every push service answering 403 later.
import { z } from "zod";

export interface VapidKeys {
  subject: string;
  publicKey: string;
  privateKey: string;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

export function fromB64url(text: string): Uint8Array {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(padded + "=".repeat((4 - (padded.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

export function toB64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** base64url of exactly `length` bytes (and, for a point, starting 0x04). */
export const b64urlBytes = (length: number, point = false) =>
  z
    .string()
    .regex(B64URL, "not base64url")
    .refine(
      (v) => {
        // zod runs this even when the regex failed, and atob throws on a length of 4n+1.
        if (!B64URL.test(v) || v.length % 4 === 1) return false;
        const bytes = fromB64url(v);
        return bytes.length === length && (!point || bytes[0] === 4);
      },
      `not ${length} bytes of base64url${point ? " starting 0x04" : ""}`,
    );

export const VapidKeysSchema = z.object({
  VAPID_PUBLIC_KEY: b64urlBytes(65, true),
  VAPID_PRIVATE_KEY: b64urlBytes(32),
  // Apple's push service refuses a localhost subject; any mailto: or https: URL is accepted here.
  VAPID_SUBJECT: z.string().regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/, "not a mailto: or https: URL"),
});

/** True when `privateKey` signs what `publicKey` verifies. */
export async function keysMatch(keys: VapidKeys): Promise<boolean> {
  try {
    const point = fromB64url(keys.publicKey);
    const jwk = { kty: "EC", crv: "P-256", x: toB64url(point.slice(1, 33)), y: toB64url(point.slice(33)), d: keys.privateKey };
    const ecdsa = { name: "ECDSA", namedCurve: "P-256" };
    const signer = await crypto.subtle.importKey("jwk", jwk, ecdsa, false, ["sign"]);
    const verifier = await crypto.subtle.importKey("raw", point, ecdsa, false, ["verify"]);
    const probe = new TextEncoder().encode("edgehost vapid probe");
    const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, signer, probe);
    return await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, verifier, signature, probe);
  } catch {
    // An import refused (d not on the curve of x,y): they do not match.
    return false;
  }
}
