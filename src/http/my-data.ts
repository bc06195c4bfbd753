// What a user does with their own data: rename a session, delete all their sessions at
// once, take everything with them (every session as JSON or Markdown, their runtime
// servers without secrets), and delete their account's data. Every route acts on the
// caller's own sessions only (their account's list, each checked by the session itself).
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../identity/identify";
import type { OAuthRecord } from "../mcp/oauth/provider";
import { revokeTokens } from "../mcp/oauth/revoke";
import type { HistoryEntry } from "../protocol/messages";
import { RequestError } from "../shared/errors";
import { consoleSessionId, userAccount } from "../users/account";
import { maskedServer } from "../users/user-servers";
import { maskedProvider } from "../users/user-providers";
import { findOwnedSession, ownedSession } from "./owned-session";
import { parsed } from "./request-body";
import { deleteAllFiles } from "../files/store";
import { disconnectApps } from "../gateway/apps";
import { sizeText } from "../files/errors";

export const myData = new Hono<AppEnv>();

const RenameSchema = z.object({ title: z.string().trim().min(1, "a title cannot be empty").max(80, "at most 80 characters") }).strict();

myData.patch("/sessions/:id", parsed("json", RenameSchema, 'the body must be {"title": "..."}'), async (c) => {
  const id = c.req.param("id");
  await ownedSession(c, id, { claim: false });
  const { title } = c.req.valid("json");
  if (!(await userAccount(c.env, c.var.identity.id).renameSession(id, title))) throw new RequestError("not_found", "no such session");
  return c.json({ id, title });
});

/** Deletes every session of the caller; how many. */
async function deleteAllSessions(c: Context<AppEnv>): Promise<number> {
  const account = userAccount(c.env, c.var.identity.id);
  let deleted = 0;
  for (const { id } of await account.listSessions()) {
    const stub = await findOwnedSession(c, id, { claim: false });
    if (stub) {
      await stub.deleteSession();
      deleted++;
    } else await account.removeSession(id);
  }
  return deleted;
}

myData.delete("/api/sessions", async (c) => c.json({ deleted: await deleteAllSessions(c) }));

myData.get("/api/export", async (c) => {
  const account = userAccount(c.env, c.var.identity.id);
  const sessions = [];
  for (const summary of await account.listSessions()) {
    const stub = await findOwnedSession(c, summary.id, { claim: false });
    if (!stub) continue;
    const { entries, usage } = await stub.exportHistory();
    sessions.push({ ...summary, entries, usage });
  }
  const servers = (await account.listServers()).map(maskedServer);
  const modelProviders = (await account.listModelProviders()).map(maskedProvider);
  const exportedAt = new Date().toISOString();
  const user = { id: c.var.identity.id, name: c.var.identity.name };
  const filename = `edgehost-export-${exportedAt.slice(0, 10)}`;
  if (c.req.query("format") === "markdown") {
    c.header("content-disposition", `attachment; filename="${filename}.md"`);
    return c.body(toMarkdown(user.name, exportedAt, sessions), 200, { "content-type": "text/markdown; charset=utf-8" });
  }
  c.header("content-disposition", `attachment; filename="${filename}.json"`);
  return c.json({ user, exportedAt, sessions, servers, modelProviders });
});

myData.delete("/api/account", async (c) => {
  const account = userAccount(c.env, c.var.identity.id);
  // Final (src/users/erase-state.ts): the account is marked first, so every write from now on is refused
  // (account_erasing), and the write requests admitted before are waited for, so nothing they store outlives this.
  // Should this request die midway the mark stays: nothing new is saved until Delete my data runs again.
  const token = await account.beginErase();
  const deleted = await deleteAllSessions(c);
  // The direct tool calls' console session is not listed, but its history is the user's too.
  const toolConsole = await findOwnedSession(c, await consoleSessionId(c.var.identity.id), { claim: false });
  await toolConsole?.deleteSession();
  // RPC's serializable type cannot express the SDK's metadata types: these are the records the account stored.
  const { oauth, apps } = (await account.forgetEverything()) as unknown as { oauth: OAuthRecord[]; apps: { appId: string }[] };
  // Every app connected to /mcp is disconnected: its next call is refused, its grants deleted.
  await disconnectApps(
    c.env,
    new URL(c.req.url).origin,
    c.var.identity.id,
    apps.map((a) => a.appId),
  );
  // Every attached file goes too, a record lost or not (their sessions deleted theirs already).
  await account.takeFiles();
  if (c.env.FILES) await deleteAllFiles(c.env.FILES, c.var.identity.id);
  // Tokens are revoked at their authorization servers too (RFC 7009), as on sign-out.
  await Promise.all(oauth.map((record) => revokeTokens(record).catch(() => undefined)));
  // Nothing is left: the person can start afresh.
  await account.endErase(token);
  return c.json({ deleted: { sessions: deleted, signIns: oauth.length, apps: apps.length } });
});

type ExportedSession = { id: string; title: string | null; lastActivity: number; entries: HistoryEntry[] };

function toMarkdown(user: string, exportedAt: string, sessions: ExportedSession[]): string {
  const out = [`# edgehost: ${user}'s sessions`, "", `Exported ${exportedAt}.`, ""];
  for (const session of sessions) {
    out.push(`## ${session.title ?? "Untitled session"}`, "", `Session \`${session.id}\`, last active ${new Date(session.lastActivity).toISOString()}.`, "");
    for (const entry of session.entries) {
      if (entry.kind === "user") {
        out.push(`**You:** ${entry.text ?? ""}`, "");
        // The files themselves stay in the account (GET /api/files/{id}); the export names them.
        if (entry.files?.length) out.push(`*Files:* ${entry.files.map((f) => `${f.name} (${sizeText(f.size)}, \`${f.id}\`)`).join(", ")}`, "");
      } else if (entry.kind === "assistant" && entry.text) out.push(`**Assistant:** ${entry.text}`, "");
      else if (entry.kind === "tool_call")
        out.push(`*Tool call* \`${entry.server}.${entry.tool}\` ${"```"}json\n${JSON.stringify(entry.arguments ?? {}, null, 2)}\n${"```"}`, "");
      else if (entry.kind === "tool_result")
        out.push(`*Tool result* (\`${entry.server}.${entry.tool}\`${entry.error ? ", error" : ""}): ${entry.error ?? JSON.stringify(entry.result ?? "")}`, "");
      else if (entry.kind === "notice" || entry.kind === "error") out.push(`> ${entry.text ?? ""}`, "");
    }
  }
  return out.join("\n");
}
