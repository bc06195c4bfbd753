// One Durable Object per shared link (named by the share id): the snapshot the link shows
// and whose it is. Written once when the owner shares, read by viewers, emptied when the
// owner revokes it. Whether a link still counts is the owner's account's say (its list of
// shares, src/users/share-list.ts): a snapshot left behind by a failed revoke shows nothing.
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { SnapshotSchema, type Snapshot } from "./snapshot";

const KEY = "shared";

const StoredShareSchema = z.object({ owner: z.string(), ownerName: z.string(), snapshot: SnapshotSchema });

export interface StoredShare {
  /** The owner's identity id: whose account's list says whether the link counts. Never shown. */
  owner: string;
  /** The owner's display name, shown as "Shared by". */
  ownerName: string;
  snapshot: Snapshot;
}

export class SharedConversation extends DurableObject<unknown> {
  async put(share: StoredShare): Promise<void> {
    await this.ctx.storage.put(KEY, JSON.stringify(share));
  }

  async get(): Promise<StoredShare | undefined> {
    const raw = await this.ctx.storage.get<string>(KEY);
    if (raw === undefined) return undefined;
    const parsed = StoredShareSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  }

  async revoke(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
