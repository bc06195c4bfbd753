// What /admin shows, as data (GET /api/admin answers exactly this): the operations
// object's snapshot, and for the most recently seen users their account's summary.
import { z } from "zod";
import type { Env } from "../config/env";
import { operations } from "../ops/operations-object";
import { OperationsSnapshotSchema, UserActivitySchema } from "../ops/reports";
import { userAccount } from "../users/account";

/** Users whose accounts are read for one view: the most recently seen. */
const ACCOUNTS_READ = 100;

export const AdminViewSchema = OperationsSnapshotSchema.extend({
  generatedAt: z.number(),
  users: z.array(
    UserActivitySchema.extend({
      sessions: z.number().nullable(),
      lastActivity: z.number().nullable(),
      tokensToday: z.number().nullable(),
      machines: z.number().nullable(),
    }),
  ),
});
export type AdminView = z.infer<typeof AdminViewSchema>;

export async function adminView(env: Env): Promise<AdminView> {
  const snapshot = await operations(env).snapshot();
  const users = await Promise.all(
    snapshot.users.map(async (user, index) => {
      const summary = index < ACCOUNTS_READ ? await userAccount(env, user.id).operatorSummary() : undefined;
      return {
        ...user,
        sessions: summary?.sessions ?? null,
        lastActivity: summary?.lastActivity ?? null,
        tokensToday: summary?.tokensToday ?? null,
        machines: summary?.machines ?? null,
      };
    }),
  );
  return AdminViewSchema.parse({ ...snapshot, users, generatedAt: Date.now() });
}
