// What an upstream's error text may show (issue 33): every form of a secret taken out, at
// most a short excerpt, nothing of an HTML page.
import { describe, expect, it } from "vitest";
import { EXCERPT_CHARS, SECRET_MASK, scrubSecrets, secretsOf, upstreamExcerpt } from "../../src/shared/upstream-text";

// A key with the characters that change when JSON-escaped or URL-encoded.
const KEY = 'sk-a"b\\c/d e+f=ü-0123456789';
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe("scrubSecrets", () => {
  it.each([
    ["raw", `Incorrect API key provided: ${KEY}.`],
    ["JSON-escaped", `{"error":{"message":"bad key ${JSON.stringify(KEY).slice(1, -1)}"}}`],
    ["URL-encoded", `GET /v1/models?key=${encodeURIComponent(KEY)} refused`],
    ["form-encoded", `body was key=${new URLSearchParams({ k: KEY }).toString().slice(2)}`],
    ["base64 of the key", `token ${b64(KEY)} unknown`],
    ["base64url of the key", `token ${b64(KEY).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")} unknown`],
    ["base64 of user:key", `Authorization: Basic ${b64(`alice:${KEY}`)} was refused`],
    ["base64 of user:key glued to text", `auth=x${b64(`someone:${KEY}`)}`],
  ])("takes out the key %s", (_form, text) => {
    const clean = scrubSecrets(text, secretsOf(KEY));
    expect(clean).toContain(SECRET_MASK);
    for (const piece of ["0123456789", b64(KEY).slice(0, 12), encodeURIComponent(KEY).slice(0, 12)]) expect(clean).not.toContain(piece);
  });

  it("finds the token and the Basic password inside header values", () => {
    expect(secretsOf("Bearer tok-0123456789")).toContain("tok-0123456789");
    expect(secretsOf(`Basic ${b64("user:pass-0123")}`)).toEqual(expect.arrayContaining(["user", "pass-0123"]));
    expect(scrubSecrets("echo: pass-0123", secretsOf(`Basic ${b64("user:pass-0123")}`))).toBe(`echo: ${SECRET_MASK}`);
  });

  it("leaves text without a secret, and short values, alone", () => {
    const text = "quota exceeded for model gemini-2.5-flash (aGVsbG8gd29ybGQ=)";
    expect(scrubSecrets(text, secretsOf(KEY))).toBe(text);
    expect(scrubSecrets("a b c", ["b"])).toBe("a b c");
  });
});

describe("upstreamExcerpt", () => {
  it("is one short line, and nothing of an HTML page", () => {
    const long = `error:\n${"x".repeat(1000)}`;
    expect(upstreamExcerpt(long)).toHaveLength(EXCERPT_CHARS + 1);
    expect(upstreamExcerpt(long)).not.toContain("\n");
    expect(upstreamExcerpt("<!DOCTYPE html><html><body>Inspector at /json: secret-ish</body></html>")).toBe("");
  });

  it("scrubs before it clips, so no prefix of a key is left at the cut", () => {
    const text = `${"y".repeat(EXCERPT_CHARS - 5)} ${KEY}`;
    expect(upstreamExcerpt(text, secretsOf(KEY))).not.toContain("sk-a");
  });
});
