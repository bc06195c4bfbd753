// Files from the user's computer through the Worker in real workerd with its R2 bucket
// (Miniflare's, from wrangler.toml): the limits the page states, an upload stored and
// served back to its owner only, and every refusal a typed error naming the file: wrong
// kind, too large, over quota, content that lies about its type; then the attacks: another
// user's file id, a name and content made to inject HTML, no identity, a foreign Origin,
// a user over their upload rate.
// Limits here are small (vitest.config.ts): 100000 bytes a file, 3 a message, 250000 a user.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import type { Env } from "../../../src/config/env";
import { describe, expect, it } from "vitest";
import { ownerPrefix } from "../../../src/files/store";
import { tokenUserId } from "../../../src/identity/tokens";
import { userAccount } from "../../../src/users/account";
import { bucketKey } from "../../../src/users/spend-ledger";
import { WORKER_ORIGIN, workerFetch } from "../worker-fetch";
import type { TestUser } from "../test-users";

/** The Worker's own R2 bucket (Miniflare's, shared with SELF). */
const bucket = (env as unknown as Env).FILES as R2Bucket;
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");

type Uploaded = { file: { id: string; name: string; mimeType: string; kind: string; size: number }; usedBytes: number };
type Refusal = { error: { code: string; message: string } };

const newSession = async (user: TestUser) =>
  ((await (await workerFetch("/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }, user)).json()) as { id: string }).id;

function upload(session: string, name: string, type: string, body: Uint8Array | string, user: TestUser = "alice", headers: Record<string, string> = {}) {
  return workerFetch(
    `/sessions/${session}/files`,
    {
      method: "POST",
      headers: { "content-type": "application/octet-stream", "x-file-name": encodeURIComponent(name), "x-file-type": type, ...headers },
      body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    },
    user,
  );
}

async function refusal(response: Response): Promise<{ status: number; code: string; message: string }> {
  const { error } = (await response.json()) as Refusal;
  return { status: response.status, code: error.code, message: error.message };
}

describe("uploading a file", () => {
  it("states the limits before any upload", async () => {
    const response = await workerFetch("/api/files/limits", {}, "carol");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      maxFileBytes: 100000,
      maxFiles: 3,
      quotaBytes: 250000,
      usedBytes: 0,
      available: true,
      accepted: { image: ["image/png", "image/jpeg", "image/gif", "image/webp"], pdf: ["application/pdf"] },
    });
  });

  it("stores an image, a PDF and a code file in R2 under the owner, and serves each back to the owner only", async () => {
    const session = await newSession("alice");
    const png = await upload(session, "shot.png", "image/png", PNG);
    expect(png.status).toBe(201);
    const image = (await png.json()) as Uploaded;
    expect(image.file).toMatchObject({ name: "shot.png", mimeType: "image/png", kind: "image", size: PNG.length });
    // Browsers call a .ts file "video/mp2t": the extension and the text decide.
    const code = (await (await upload(session, "main.ts", "video/mp2t", "export const x = 1;\n")).json()) as Uploaded;
    expect(code.file).toMatchObject({ kind: "text", mimeType: "text/plain" });
    const pdf = (await (await upload(session, "paper.pdf", "application/pdf", PDF)).json()) as Uploaded;
    expect(pdf.file.kind).toBe("pdf");

    const object = await bucket.get(`${await ownerPrefix(tokenUserId("alice"))}${image.file.id}`);
    expect(new Uint8Array((await object?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(PNG);

    const served = await workerFetch(`/api/files/${image.file.id}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);
    const text = await workerFetch(`/api/files/${code.file.id}`);
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(text.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''main.ts");
    expect(await text.text()).toBe("export const x = 1;\n");

    // Another user's id is the same 404 as one that never existed, for reading and for deleting.
    for (const method of ["GET", "DELETE"]) {
      const foreign = await workerFetch(`/api/files/${image.file.id}`, { method }, "bob");
      expect(await refusal(foreign)).toMatchObject({ status: 404, code: "file_not_found" });
    }
    expect(await refusal(await workerFetch("/api/files/f_AAAAAAAAAAAAAAAAAAAAAA"))).toMatchObject({ status: 404, code: "file_not_found" });
    expect((await workerFetch(`/api/files/${image.file.id}`)).status).toBe(200);

    // Nor can anyone upload into a session that is not theirs.
    expect((await upload(session, "mine.txt", "text/plain", "hi", "bob")).status).toBe(404);

    // The owner deletes one: the record and the bytes go.
    expect((await workerFetch(`/api/files/${code.file.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await bucket.head(`${await ownerPrefix(tokenUserId("alice"))}${code.file.id}`)).toBeNull();
    expect((await workerFetch(`/api/files/${code.file.id}`)).status).toBe(404);
  });

  it("refuses a wrong kind, a file too large and content that lies about its type, each naming the file", async () => {
    const session = await newSession("alice");
    expect(await refusal(await upload(session, "archive.zip", "application/zip", new Uint8Array([0x50, 0x4b, 3, 4])))).toEqual({
      status: 415,
      code: "file_type_unsupported",
      message: '"archive.zip" is of type application/zip: attach images (PNG, JPEG, GIF, WebP), PDFs, or text and code files',
    });
    expect(await refusal(await upload(session, "huge.txt", "text/plain", "x".repeat(100_001)))).toEqual({
      status: 413,
      code: "file_too_large",
      message: '"huge.txt" is larger than 97.7 KB, the most one file may have',
    });
    // A text file named and typed as a PNG, a PNG claiming to be a PDF, and binary bytes claiming to be text.
    expect(await refusal(await upload(session, "cat.png", "image/png", "<script>alert(1)</script>"))).toEqual({
      status: 415,
      code: "file_content_mismatch",
      message: '"cat.png" claims to be image/png but its content is text',
    });
    expect(await refusal(await upload(session, "paper.pdf", "application/pdf", PNG))).toMatchObject({
      code: "file_content_mismatch",
      message: '"paper.pdf" claims to be application/pdf but its content is image/png',
    });
    expect(await refusal(await upload(session, "notes.txt", "text/plain", new Uint8Array([0xff, 0xfe, 0, 1, 2])))).toMatchObject({
      code: "file_content_mismatch",
      message: '"notes.txt" claims to be text/plain but its content is binary data',
    });
    // Nothing refused was stored or counted.
    expect(((await (await workerFetch("/api/files/limits")).json()) as { usedBytes: number }).usedBytes).toBeLessThan(1000);
  });

  it("keeps each user under their quota, across sessions; deleting a session frees its files", async () => {
    const first = await newSession("erin");
    const second = await newSession("erin");
    const chunk = "y".repeat(90_000);
    expect((await upload(first, "a.txt", "text/plain", chunk, "erin")).status).toBe(201);
    expect((await upload(second, "b.txt", "text/plain", chunk, "erin")).status).toBe(201);
    const over = await refusal(await upload(second, "c.txt", "text/plain", chunk, "erin"));
    expect(over).toEqual({
      status: 413,
      code: "file_quota_exceeded",
      message: '"c.txt" (87.9 KB) does not fit: your files use 175.8 KB of your 244.1 KB; delete sessions with files to make room',
    });
    // Another user's quota is their own.
    expect((await upload(await newSession("bob"), "c.txt", "text/plain", chunk, "bob")).status).toBe(201);

    expect((await workerFetch(`/sessions/${first}`, { method: "DELETE" }, "erin")).status).toBe(204);
    const listed = await bucket.list({ prefix: await ownerPrefix(tokenUserId("erin")) });
    expect(listed?.objects).toHaveLength(1);
    expect((await upload(second, "c.txt", "text/plain", chunk, "erin")).status).toBe(201);
  });

  it("lets no two uploads at once pass the quota together", async () => {
    const session = await newSession("dave");
    const chunk = "z".repeat(90_000);
    const answers = await Promise.all([1, 2, 3, 4].map((n) => upload(session, `${n}.txt`, "text/plain", chunk, "dave")));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 413, 413]);
    expect((await bucket.list({ prefix: await ownerPrefix(tokenUserId("dave")) })).objects).toHaveLength(2);
    expect((await workerFetch(`/sessions/${session}`, { method: "DELETE" }, "dave")).status).toBe(204);
  });

  it("limits how fast a user uploads, before reading the file, and not other users", async () => {
    const bob = userAccount(env as unknown as Env, tokenUserId("bob"));
    // Bob's uploads are used up for the next hour.
    await runInDurableObject(bob, (_instance, state) => state.storage.put(bucketKey("upload"), { tokens: 0, at: Date.now() + 3_600_000 }));
    const session = await newSession("bob");
    const stored = async () => (await bucket.list({ prefix: await ownerPrefix(tokenUserId("bob")) })).objects.length;
    const before = await stored();
    const refused = await upload(session, "a.txt", "text/plain", "hi", "bob");
    const { message, ...rest } = await refusal(refused);
    expect(rest).toEqual({ status: 429, code: "rate_limited" });
    expect(message).toMatch(/^Too many uploads: try again in \d+ s\.$/);
    expect(await stored()).toBe(before);
    expect((await upload(await newSession("alice"), "a.txt", "text/plain", "hi")).status).toBe(201);
    await runInDurableObject(bob, (_instance, state) => state.storage.delete(bucketKey("upload")));
    expect((await upload(session, "a.txt", "text/plain", "hi", "bob")).status).toBe(201);
  });

  it("deletes every file of an account with its data", async () => {
    const session = await newSession("carol");
    await upload(session, "a.txt", "text/plain", "a", "carol");
    await upload(session, "b.txt", "text/plain", "b", "carol");
    const prefix = await ownerPrefix(tokenUserId("carol"));
    expect((await bucket.list({ prefix })).objects).toHaveLength(2);
    expect((await workerFetch("/api/account", { method: "DELETE" }, "carol")).status).toBe(200);
    expect((await bucket.list({ prefix })).objects).toEqual([]);
    expect(((await (await workerFetch("/api/files/limits", {}, "carol")).json()) as { usedBytes: number }).usedBytes).toBe(0);
  });

  it("keeps a name that tries to inject HTML as plain text, and serves HTML content as an attachment that cannot run", async () => {
    const session = await newSession("alice");
    const name = "<img src=x onerror=alert(1)>\u202Etxt.html";
    const response = await upload(session, name, "text/html", "<script>alert(document.cookie)</script>");
    expect(response.status).toBe(201);
    const { file } = (await response.json()) as Uploaded;
    // The bidi override that would show "lmth.txt" is gone; the rest is text for the page to show as text.
    expect(file.name).toBe("<img src=x onerror=alert(1)>txt.html");
    const served = await workerFetch(`/api/files/${file.id}`);
    expect(served.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(served.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(served.headers.get("content-disposition")).toBe(`attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`);
  });

  it("refuses an upload with no identity, from a foreign Origin, or as a form", async () => {
    const session = await newSession("alice");
    const anonymous = await SELF.fetch(`${WORKER_ORIGIN}/sessions/${session}/files`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream", "x-file-name": "a.txt" },
      body: "hi",
    });
    expect(await refusal(anonymous)).toMatchObject({ status: 401, code: "unauthenticated" });
    const foreign = await upload(session, "a.txt", "text/plain", "hi", "alice", { origin: "https://evil.example" });
    expect(await refusal(foreign)).toMatchObject({ status: 403, code: "forbidden_origin" });
    // A cross-site form could send text/plain or multipart without a preflight: only raw bytes are taken.
    const form = await upload(session, "a.txt", "text/plain", "hi", "alice", { "content-type": "text/plain" });
    expect(await refusal(form)).toMatchObject({ status: 415, code: "unsupported_media_type" });
  });
});
