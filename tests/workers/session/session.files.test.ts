// Files from the user's computer in a chat session, through the real Worker, the real
// ChatSession and R2, with the fake Gemini recording what it is sent: files uploaded
// then named by a message reach the model natively (image and PDF as inline data, text
// as text), the user entry lists them (and the replay after a reload), later turns send
// them again; a message naming another user's file, a file of another session or too
// many files gets a typed error and the session goes on; a reset and the session's
// expiry (SESSION_TTL_DAYS, its alarm's callback called with a date 31 days on) delete the files.
import { env, runInDurableObject } from "cloudflare:test";
import type { Env } from "../../../src/config/env";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { ownerPrefix } from "../../../src/files/store";
import { tokenUserId } from "../../../src/identity/tokens";
import { toBase64 } from "../../../src/orchestrator/file-parts";
import type { ChatSession } from "../../../src/session/ChatSession";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import type { Message, SessionClient } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";

/** The Worker's own R2 bucket (Miniflare's, shared with SELF). */
const bucket = (env as unknown as Env).FILES as R2Bucket;
const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
const PDF = new TextEncoder().encode("%PDF-1.4\n%%EOF\n");

type FileRef = { id: string; name: string; mimeType: string; kind: string; size: number };

async function upload(session: string, name: string, type: string, body: Uint8Array | string, user: TestUser = "alice"): Promise<FileRef> {
  const response = await workerFetch(
    `/sessions/${session}/files`,
    {
      method: "POST",
      headers: { "content-type": "application/octet-stream", "x-file-name": encodeURIComponent(name), "x-file-type": type },
      body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    },
    user,
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { file: FileRef }).file;
}

async function errorFor(socket: SessionClient, frame: unknown): Promise<Message<"error">> {
  const from = socket.received.length;
  socket.send(frame);
  return socket.next((m): m is Message<"error"> => m.type === "error", from);
}

type Contents = { role: string; parts: Record<string, unknown>[] }[];
const lastContents = async (): Promise<Contents> => ((await requests(llm, KEY)).at(-1)?.body.contents ?? []) as Contents;

describe("files attached to a message", () => {
  it("go to the model natively with the message, stay listed in its entry, and are sent again in later turns", async () => {
    await script(llm, KEY, [reply.text("A pixel, a PDF and a list."), reply.text("Still there.")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const image = await upload(id, "pixel.png", "image/png", PNG);
    const pdf = await upload(id, "empty.pdf", "application/pdf", PDF);
    const text = await upload(id, "list.md", "text/markdown", "- milk\n- eggs\n");
    const from = socket.received.length;
    socket.send({ type: "message", text: "what are these?", files: [image.id, pdf.id, text.id] });
    const { end } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");

    const parts = (await lastContents()).at(-1)?.parts;
    expect(parts).toEqual([
      { text: "what are these?" },
      { text: `Attached file "pixel.png" (image/png, ${PNG.length} B): image, attached next.` },
      { inlineData: { mimeType: "image/png", data: toBase64(PNG) } },
      { text: `Attached file "empty.pdf" (application/pdf, ${PDF.length} B): document, attached next.` },
      { inlineData: { mimeType: "application/pdf", data: toBase64(PDF) } },
      { text: 'Attached file "list.md" (text/markdown, 14 B):\n- milk\n- eggs\n' },
    ]);

    const entry = socket.entries(from).find((e) => e.kind === "user");
    expect(entry?.files).toEqual([image, pdf, text]);
    await socket.close();
    const again = await openSession(id);
    expect(again.history().find((e) => e.kind === "user")?.files).toEqual([image, pdf, text]);
    const next = again.say("and now?");
    await again.turnEnd(next);
    expect((await lastContents())[0]?.parts).toEqual(parts);
    await again.close();
  });

  it("refuses another user's file, another session's file and too many files with typed errors; the session goes on", async () => {
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const other = crypto.randomUUID();
    await (await openSession(other)).close();
    const elsewhere = await upload(other, "a.txt", "text/plain", "a");
    const bobs = crypto.randomUUID();
    await (await openSession(bobs, "bob")).close();
    const foreign = await upload(bobs, "secret.txt", "text/plain", "bob's secret", "bob");

    for (const fileId of [foreign.id, elsewhere.id, "../../etc/passwd"]) {
      expect(await errorFor(socket, { type: "message", text: "look", files: [fileId] })).toMatchObject({
        code: "file_not_found",
        message: `no file ${JSON.stringify(fileId)} was uploaded to this session`,
      });
    }
    const mine = await Promise.all(["1", "2", "3", "4"].map((n) => upload(id, `${n}.txt`, "text/plain", n)));
    expect(await errorFor(socket, { type: "message", text: "look", files: mine.map((f) => f.id) })).toMatchObject({
      code: "too_many_files",
      message: "a message may carry at most 3 files (got 4)",
    });
    expect(JSON.stringify((await requests(llm, KEY)).map((r) => r.body))).not.toContain("secret");

    await script(llm, KEY, [reply.text("ok")]);
    const from = socket.say("plain question");
    expect((await socket.turnEnd(from)).end.reason).toBe("complete");
    await socket.close();
  });

  it("go with a server's prompt, in its first user message, checked as a message's are", async () => {
    await script(llm, KEY, [reply.text("Prompt and file read.")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && s.state === "ready"));
    const notes = await upload(id, "notes.txt", "text/plain", "buy milk");
    const bobs = crypto.randomUUID();
    await (await openSession(bobs, "bob")).close();
    const foreign = await upload(bobs, "secret.txt", "text/plain", "bob's secret", "bob");
    expect(await errorFor(socket, { type: "prompt", server: "everything", name: "simple-prompt", files: [foreign.id] })).toMatchObject({
      code: "file_not_found",
    });
    const from = socket.received.length;
    socket.send({ type: "prompt", server: "everything", name: "simple-prompt", files: [notes.id] });
    expect((await socket.turnEnd(from)).end.reason).toBe("complete");
    expect((await lastContents()).at(-1)?.parts).toEqual([
      { text: "This is a simple prompt without arguments." },
      { text: 'Attached file "notes.txt" (text/plain, 8 B):\nbuy milk' },
    ]);
    expect(socket.entries(from).find((e) => e.kind === "user")).toMatchObject({
      prompt: { server: "everything", name: "simple-prompt" },
      files: [{ id: notes.id, name: "notes.txt", kind: "text", size: 8 }],
    });
    // The refused prompt reached no model: one request in all.
    expect((await requests(llm, KEY)).length).toBe(1);
    socket.close();
  });

  it("are deleted with the conversation on reset", async () => {
    await script(llm, KEY, [reply.text("ok")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const file = await upload(id, "note.txt", "text/plain", "remember this");
    const from = socket.received.length;
    socket.send({ type: "message", text: "keep it", files: [file.id] });
    await socket.turnEnd(from);
    const key = `${await ownerPrefix(tokenUserId("alice"))}${file.id}`;
    expect(await bucket.head(key)).not.toBeNull();
    const cleared = socket.received.length;
    socket.send({ type: "reset" });
    await socket.next((m) => m.type === "history", cleared);
    expect((await workerFetch(`/api/files/${file.id}`)).status).toBe(404);
    expect(await bucket.head(key)).toBeNull();
    await socket.close();
  });

  it("are deleted when the session expires", async () => {
    await script(llm, KEY, [reply.text("ok")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const file = await upload(id, "old.txt", "text/plain", "from long ago");
    const from = socket.received.length;
    socket.send({ type: "message", text: "keep it", files: [file.id] });
    await socket.turnEnd(from);
    await socket.close();
    const sessions = (env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
    const expired = await runInDurableObject(sessions.get(sessions.idFromName(id)), (instance: ChatSession) =>
      instance.expireIfIdle(undefined, undefined, Date.now() + 31 * 24 * 60 * 60_000),
    );
    expect(expired).toBe(true);
    expect(await bucket.head(`${await ownerPrefix(tokenUserId("alice"))}${file.id}`)).toBeNull();
    expect((await workerFetch(`/api/files/${file.id}`)).status).toBe(404);
  });
});
