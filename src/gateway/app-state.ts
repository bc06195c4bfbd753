// A GatewayApp's own record in its SQLite storage: whose app it is, its active generation
// (0 once disconnected), the client and what the person allowed it. Key/value rows, read
// once per object life and cached.
import { z } from "zod";
import type { GatewayOwner } from "./props";

const AppRecordSchema = z.object({
  owner: z.object({ id: z.string(), name: z.string(), mode: z.enum(["access", "token", "none"]) }),
  /** Tokens of an older generation are refused (Disconnect, or a newer consent); 0: disconnected. */
  activeGen: z.number().int().min(0),
  client: z.object({ id: z.string(), name: z.string(), redirectHost: z.string() }),
  /** Whether the person let this app spend their model budget on its servers' sampling requests. */
  samplingAllowed: z.boolean(),
});
export type AppRecord = z.infer<typeof AppRecordSchema>;

const KEY = "app";

export class AppState {
  #record: AppRecord | undefined | null = null;

  constructor(private readonly storage: DurableObjectStorage) {}

  async get(): Promise<AppRecord | undefined> {
    if (this.#record !== null) return this.#record;
    const raw = await this.storage.get<string>(KEY);
    const parsed = raw === undefined ? undefined : AppRecordSchema.safeParse(JSON.parse(raw));
    this.#record = parsed?.success ? parsed.data : undefined;
    return this.#record;
  }

  async put(record: AppRecord): Promise<void> {
    await this.storage.put(KEY, JSON.stringify(AppRecordSchema.parse(record)));
    this.#record = record;
  }

  /** Whether a request carrying these grant props may be served: same person, current generation. */
  async admits(owner: GatewayOwner, gen: number): Promise<boolean> {
    const record = await this.get();
    return record !== undefined && record.activeGen > 0 && record.activeGen === gen && record.owner.id === owner.id;
  }
}
