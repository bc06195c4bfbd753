// The model's view kept between turns (src/session/model-view.ts), on a real
// Durable Object's SQLite: a turn already built is not built again, a turn that
// grew is, a version switched away from leaves the view, a summary cuts it, and a
// turn with attached resources is read again each time. A chat a member spoke in stays
// labelled however many rows follow (the store keeps who wrote, not only the newest 1,000 rows).
import { env, runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { UserPart } from "../../../src/llm/provider";
import type { ChatSession } from "../../../src/session/ChatSession";
import { HistoryStore } from "../../../src/session/history";
import { ModelView } from "../../../src/session/model-view";

const inObject = async (body: (store: HistoryStore, sql: SqlStorage) => Promise<void>) => {
  const stub = await getAgentByName((env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>, crypto.randomUUID());
  await runInDurableObject(stub, (_instance, state) => body(new HistoryStore(state.storage.sql), state.storage.sql));
};

const turn = (store: HistoryStore, turnId: string, question: string, answer: string, parent = store.tree.leaf() ?? null) => {
  store.tree.begin(turnId, parent);
  store.append({ turnId, kind: "user", text: question });
  store.append({ turnId, kind: "assistant", text: answer });
};

describe("the model's view between turns", () => {
  it("keeps built turns, builds what changed, and follows versions and summaries", async () => {
    await inObject(async (store) => {
      const view = new ModelView(store);
      turn(store, "a", "one?", "One.");
      turn(store, "b", "two?", "Two.");
      const first = await view.turns();
      expect(first.map((t) => t.turnId)).toEqual(["a", "b"]);
      expect(first[0]?.messages).toEqual([
        { role: "user", text: "one?" },
        { role: "assistant", text: "One.", toolCalls: undefined },
      ]);
      expect(first[0]?.tokens).toBeGreaterThan(0);

      // A new turn: the earlier ones come back as they were, not built again.
      turn(store, "c", "three?", "Three.");
      const second = await view.turns();
      expect(second[0]).toBe(first[0]);
      expect(second[1]).toBe(first[1]);
      expect(second[2]?.messages.at(-1)).toMatchObject({ text: "Three." });

      // The last turn grows: it alone is built again.
      store.append({ turnId: "c", kind: "notice", text: "a notice" });
      store.append({ turnId: "c", kind: "assistant", text: "More." });
      const third = await view.turns();
      expect(third[0]).toBe(first[0]);
      expect(third[2]).not.toBe(second[2]);
      expect(third[2]?.messages.at(-1)).toMatchObject({ text: "More." });

      // Another version of "b": "b" and "c" leave the view.
      turn(store, "b2", "two, again?", "Two again.", "a");
      expect((await view.turns()).map((t) => t.turnId)).toEqual(["a", "b2"]);
      store.tree.switchTo("c");
      expect((await view.turns()).map((t) => t.turnId)).toEqual(["a", "b", "c"]);

      // A summary up to "b": the view starts after it.
      store.append({ turnId: "c", kind: "summary", text: "They counted.", summaryOf: { turns: 2, upTo: "b" } });
      expect(view.history().summary?.text).toBe("They counted.");
      expect((await view.turns()).map((t) => t.turnId)).toEqual(["c"]);
    });
  });

  it("keeps a chat's speaker labels once a member spoke, though 1,000 newer rows followed, and across a reload", async () => {
    const owner = { key: "owner-key", name: "dave" };
    const frank = { key: "frank-key", name: "frank" };
    await inObject(async (store, sql) => {
      const view = new ModelView(store, undefined, () => owner);
      store.tree.begin("t0", null);
      store.append({ turnId: "t0", kind: "user", text: "hello", author: owner });
      expect(view.labelled()).toBe(false);
      store.append({ turnId: "t0", kind: "user", text: "hi, frank here", author: frank });
      // More rows than the replayable tail holds, none of them frank's.
      store.tree.begin("t1", "t0");
      for (let i = 0; i < 1_001; i++) store.append({ turnId: "t1", kind: "assistant", text: `row ${i}` });
      expect(store.allEntries().some((e) => e.author?.key === frank.key)).toBe(false);
      expect(view.labelled()).toBe(true);
      // The object woken again (nothing in memory): still labelled, from what the store saved.
      expect(new ModelView(new HistoryStore(sql), undefined, () => owner).labelled()).toBe(true);
      // A chat from before the saved list reads it from all its rows once.
      sql.exec("DELETE FROM settings WHERE key = 'authors'");
      const older = new HistoryStore(sql);
      expect(older.authors()).toEqual([owner.key, frank.key]);
      expect(new ModelView(older, undefined, () => owner).labelled()).toBe(true);
      // Cleared history: nobody has spoken.
      older.clear();
      expect(new ModelView(new HistoryStore(sql), undefined, () => owner).labelled()).toBe(false);
    });
  });

  it("reads a turn's attached contents again each time", async () => {
    await inObject(async (store) => {
      let contents = "first version";
      const view = new ModelView(store, (entry): UserPart[] | undefined => (entry.attachments?.length ? [{ type: "text", text: contents }] : undefined));
      store.tree.begin("a", null);
      store.append({ turnId: "a", kind: "user", text: "read this", attachments: [{ server: "fs", uri: "file:///a" }] });
      expect((await view.turns())[0]?.messages[0]).toMatchObject({ parts: [{ text: "first version" }] });
      contents = "second version";
      expect((await view.turns())[0]?.messages[0]).toMatchObject({ parts: [{ text: "second version" }] });
    });
  });
});
