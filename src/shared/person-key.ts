// A person's handle on the wire: the first 12 hex digits of SHA-256 of their identity id.
// Pages see keys, never ids (an id names a token or an Access subject).
const encoder = new TextEncoder();

export async function personKey(id: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(id)));
  return Array.from(digest.subarray(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
}

export const PERSON_KEY = /^[0-9a-f]{12}$/;
