// A table of the account whose rows each hold one entry as JSON (the user's runtime servers,
// their own model providers): read in order, each row checked against its schema, a row
// an older version wrote that no longer reads left out rather than breaking the list.
import type { z } from "zod";

export function readEntries<S extends z.ZodType>(sql: SqlStorage, query: string, schema: S): z.infer<S>[] {
  return sql
    .exec<{ entry: string }>(query)
    .toArray()
    .flatMap((row) => {
      const parsed = schema.safeParse(JSON.parse(row.entry));
      return parsed.success ? [parsed.data] : [];
    });
}
