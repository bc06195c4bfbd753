// The secrets of machine pairing: the short code a person reads off their terminal and
// approves on the page, the poll token only the pairing bridge holds, and the device
// credential the bridge keeps afterwards (`{user}.{machine}.{secret}`: it names the
// user's account so the Worker can route the socket without a global lookup; only the
// secret's SHA-256 is stored, so a forged user or machine part fails the comparison).
import { MACHINE_NAME } from "../shared/machine-frames";

/** No 0/O, 1/I/L: read off a terminal and typed on a phone. 31^8 ≈ 8.5e11 codes. */
const CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
export const CODE_PATTERN = /^[2-9A-HJKMNP-Z]{4}-?[2-9A-HJKMNP-Z]{4}$/;

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function fromBase64url(text: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export function newPairingCode(): string {
  // Rejection sampling keeps every letter equally likely.
  const letters: string[] = [];
  while (letters.length < 8) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      if (byte < 248 && letters.length < 8) letters.push(CODE_ALPHABET[byte % 31] as string);
    }
  }
  return `${letters.slice(0, 4).join("")}-${letters.slice(4).join("")}`;
}

/** The code as stored: upper case, with its dash (people type it either way). */
export function normalCode(code: string): string | undefined {
  const upper = code.trim().toUpperCase();
  if (!CODE_PATTERN.test(upper)) return undefined;
  const plain = upper.replace("-", "");
  return `${plain.slice(0, 4)}-${plain.slice(4)}`;
}

export async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Equal-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.length === right.length && crypto.subtle.timingSafeEqual(left, right);
}

export interface DeviceCredential {
  userId: string;
  machineId: string;
  secret: string;
}

export function mintCredential(userId: string): DeviceCredential & { text: string } {
  // Lower-case hex: it is also a host name label in the session's server URL (tunnel-url.ts).
  const machineId = [...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const secret = randomToken();
  return { userId, machineId, secret, text: `${base64url(encoder.encode(userId))}.${machineId}.${secret}` };
}

export function parseCredential(text: string | undefined): DeviceCredential | undefined {
  const parts = (text ?? "").split(".");
  if (parts.length !== 3) return undefined;
  const [user = "", machineId = "", secret = ""] = parts;
  const userId = fromBase64url(user);
  if (!userId || userId.length > 300 || !/^[0-9a-f]{12}$/.test(machineId) || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
  return { userId, machineId, secret };
}

/** A name the machine may go by: what the bridge asked for, cleaned, or "machine". */
export function machineName(asked: string | undefined): string {
  const cleaned = (asked ?? "")
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^[-_]+/, "")
    .slice(0, 32);
  return MACHINE_NAME.test(cleaned) ? cleaned : "machine";
}
