// A person's own instructions and their presets, kept in their UserAccount (SQLite) and
// gone with it (Delete my data). The instructions reach the model after the operator's
// SYSTEM_PROMPT, never in its place (src/orchestrator/prompt.ts); a preset is applied to
// a chat once (model, servers, its instructions kept as the chat's setting), so editing a
// preset later changes no chat it was applied to.
//
// The instructions carry a version: a turn's admission asks for them only when they
// changed since the version the session holds (UserAccount.beginTurn), no extra call.
import { z } from "zod";
import { MODEL_NAME } from "../llm/provider-config";
import { EntryTable } from "./entry-table";

export const INSTRUCTIONS_MAX_CHARS = 4_000;
export const PRESET_NAME_MAX_CHARS = 40;

/** A preset's model: which one, as a chat's model picker names it (`user:{id}` for the person's own providers). */
const PresetModelSchema = z.strictObject({
  provider: z.string().regex(/^(user:)?[a-z0-9][a-z0-9_-]{0,31}$/, "a provider id"),
  model: z.string().regex(MODEL_NAME, "a model name (letters, digits and . _ : / @ + -)"),
});

/** What the API accepts for a preset (POST /api/presets, PUT /api/presets/:id). */
export const PresetInputSchema = z.strictObject({
  name: z.string().trim().min(1, "a name is required").max(PRESET_NAME_MAX_CHARS, `at most ${PRESET_NAME_MAX_CHARS} characters`),
  model: PresetModelSchema.optional(),
  instructions: z.string().max(INSTRUCTIONS_MAX_CHARS, `at most ${INSTRUCTIONS_MAX_CHARS} characters`).optional(),
  servers: z.array(z.string().min(1).max(64)).max(100).optional(),
});
export type PresetInput = z.infer<typeof PresetInputSchema>;

export const PresetSchema = PresetInputSchema.extend({ id: z.uuid() });
export type Preset = z.infer<typeof PresetSchema>;

export const InstructionsInputSchema = z.strictObject({
  instructions: z.string().max(INSTRUCTIONS_MAX_CHARS, `at most ${INSTRUCTIONS_MAX_CHARS} characters`),
});

/** The person's instructions as a turn's admission carries them: `instructions` absent when there are none. */
export interface Profile {
  version: number;
  instructions?: string;
}

export type PresetWrite = { ok: true; preset: Preset } | { ok: false; code: "too_many_presets" | "preset_unknown" };

export class PresetStore {
  private readonly table: EntryTable<typeof PresetSchema>;

  constructor(private readonly sql: SqlStorage) {
    this.table = new EntryTable(sql, "presets", "id", PresetSchema);
    sql.exec("CREATE TABLE IF NOT EXISTS profile (id INTEGER PRIMARY KEY CHECK (id = 1), instructions TEXT NOT NULL, version INTEGER NOT NULL)");
  }

  /** The instructions and their version; `known` equal to it: the version only. */
  profile(known?: number): Profile {
    const row = this.sql.exec<{ instructions: string; version: number }>("SELECT instructions, version FROM profile WHERE id = 1").toArray()[0];
    const version = row?.version ?? 0;
    if (known === version || !row?.instructions) return { version };
    return { version, instructions: row.instructions };
  }

  setInstructions(text: string): Profile {
    const trimmed = text.trim();
    this.sql.exec(
      "INSERT INTO profile (id, instructions, version) VALUES (1, ?, 1) ON CONFLICT(id) DO UPDATE SET instructions = excluded.instructions, version = profile.version + 1",
      trimmed,
    );
    return this.profile();
  }

  /** In the order they were made (names may repeat; the id tells them apart). */
  list(): Preset[] {
    const rows = this.sql.exec<{ id: string }>("SELECT id FROM presets ORDER BY updated_at, id").toArray();
    const byId = new Map(this.table.list().map((p) => [p.id, p]));
    return rows.flatMap((row) => byId.get(row.id) ?? []);
  }

  get(id: string): Preset | undefined {
    return this.table.list().find((p) => p.id === id);
  }

  create(input: PresetInput, max: number, now = Date.now()): PresetWrite {
    if (this.table.list().length >= max) return { ok: false, code: "too_many_presets" };
    const preset: Preset = { ...clean(input), id: crypto.randomUUID() };
    this.table.put(preset.id, preset, now);
    return { ok: true, preset };
  }

  /** Replaces a preset whole; it keeps its place in the list. */
  update(id: string, input: PresetInput): PresetWrite {
    const row = this.sql.exec<{ updated_at: number }>("SELECT updated_at FROM presets WHERE id = ?", id).toArray()[0];
    if (!row) return { ok: false, code: "preset_unknown" };
    const preset: Preset = { ...clean(input), id };
    this.table.put(id, preset, row.updated_at);
    return { ok: true, preset };
  }

  delete(id: string): boolean {
    return this.table.delete(id);
  }

  clear(): void {
    this.table.clear();
    // The version keeps counting: a session holding the old instructions hears they are gone.
    this.sql.exec("UPDATE profile SET instructions = '', version = version + 1");
  }
}

/** Blank instructions and an empty server list mean "not part of the preset". */
function clean(input: PresetInput): PresetInput {
  const instructions = input.instructions?.trim();
  return {
    name: input.name,
    ...(input.model ? { model: input.model } : {}),
    ...(instructions ? { instructions } : {}),
    ...(input.servers ? { servers: [...new Set(input.servers)] } : {}),
  };
}
