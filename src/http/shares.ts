// Sharing a conversation: POST /sessions/:id/shares makes a read-only link to a snapshot
// of the session as it is now (src/share/snapshot.ts); GET /share/:shareId shows it as a
// page without script (src/share/share-page.ts); GET /api/shares lists the caller's links
// and DELETE /api/shares/:shareId revokes one. A viewer must be signed in to this
// deployment (any of its users; see docs/http-api.md#sharing-a-conversation for why), and
// a link counts only while its owner's account lists it, so revoking is immediate and only
// the owner can do it.
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../identity/identify";
import { userAccount } from "../users/account";
import { ShareSummarySchema, type ShareSummary } from "../users/share-list";
import { MAX_SNAPSHOT_CHARS, snapshotOf } from "../share/snapshot";
import { newShareId, SHARE_ID, sharedConversation } from "../share/share-object";
import type { StoredShare } from "../share/SharedConversation";
import { SHARE_PAGE_HEADERS, shareGonePage, sharePage, shareSignInPage } from "../share/share-page";
import { runtimeConfig } from "../config/runtime-config";
import { RequestError } from "../shared/errors";
import { SESSION_ID, ownedSession } from "./owned-session";
import { parsed } from "./request-body";

export const shares = new Hono<AppEnv>();

const ShareSchema = ShareSummarySchema.extend({ url: z.string() });
const withUrl = (share: ShareSummary) => ShareSchema.parse({ ...share, url: `/share/${share.id}` });

shares.post("/sessions/:id/shares", async (c) => {
  const id = c.req.param("id");
  const owned = await ownedSession(c, id, { claim: false });
  const account = userAccount(c.env, c.var.identity.id);
  // Only a listed session (not the user's tool console) has a title and can be shared.
  const listed = await account.sessionTitle(id);
  if (!listed) throw new RequestError("not_found", "no such session");
  // The whole conversation, not the window a page gets first (src/session/history-window.ts).
  const { entries } = await owned.exportHistory();
  const snapshot = snapshotOf(listed.title, entries);
  if (JSON.stringify(snapshot).length > MAX_SNAPSHOT_CHARS)
    throw new RequestError("payload_too_large", "this conversation is too large to share as one page; delete or compact it first");
  const shareId = newShareId();
  const share = { id: shareId, sessionId: id, title: listed.title, createdAt: snapshot.sharedAt };
  // Listed before its snapshot is stored, counted against the caps and the rate in the same
  // call of the account object: nothing is stored past a limit, however many run at once.
  // Until the snapshot is stored the listed link shows "gone"; if storing fails, it leaves the list.
  const { SHARES_PER_SESSION, SHARES_PER_USER, SHARES_PER_MINUTE, SHARE_BURST } = runtimeConfig(c.env).settings;
  const listing = await account.addShare(
    share,
    { perSession: SHARES_PER_SESSION, perUser: SHARES_PER_USER },
    { perMinute: SHARES_PER_MINUTE, burst: SHARE_BURST },
  );
  if (!listing.ok) throw new RequestError(listing.code, listing.message, "retryAfterMs" in listing ? { retryAfterMs: listing.retryAfterMs } : {});
  try {
    await sharedConversation(c.env, shareId).put({ owner: c.var.identity.id, ownerName: c.var.identity.name, snapshot });
  } catch (error) {
    await account.revokeShare(shareId);
    throw error;
  }
  return c.json(withUrl(share), 201);
});

const ListQuerySchema = z.object({ session: z.string().regex(SESSION_ID, "session ids are 1-64 letters, digits, '_' or '-'").optional() });

shares.get(
  "/api/shares",
  parsed("query", ListQuerySchema, ([first]) => `${first?.path}: ${first?.message}`),
  async (c) => {
    const { session } = c.req.valid("query");
    const list = await userAccount(c.env, c.var.identity.id).listShares(session);
    return c.json({ shares: list.map(withUrl) });
  },
);

shares.delete("/api/shares/:shareId", async (c) => {
  const shareId = c.req.param("shareId");
  // Another user's link, a revoked one and a made-up one get the same answer.
  if (!SHARE_ID.test(shareId) || !(await userAccount(c.env, c.var.identity.id).revokeShare(shareId)))
    throw new RequestError("not_found", "no such shared link");
  return c.body(null, 204);
});

shares.get("/share/:shareId", async (c) => {
  for (const [name, value] of Object.entries(SHARE_PAGE_HEADERS)) c.header(name, value);
  // Reached signed out too (src/index.ts), only to be told to sign in: nothing of the link is read.
  if (!c.get("identity")) return c.html(shareSignInPage(), 401);
  const shareId = c.req.param("shareId");
  // The RPC stub's mapped type cannot express the snapshot's `unknown` values: the shape is the same.
  const stored = SHARE_ID.test(shareId) ? ((await sharedConversation(c.env, shareId).get()) as StoredShare | undefined) : undefined;
  const live = stored !== undefined && (await userAccount(c.env, stored.owner).hasShare(shareId));
  if (!stored || !live) return c.html(shareGonePage(), 404);
  return c.html(sharePage(stored.snapshot, { sharedBy: stored.ownerName }));
});
