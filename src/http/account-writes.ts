// Every write request of a signed-in user holds a lease on their account while it runs
// (src/users/erase-state.ts): refused with `account_erasing` while Delete my data runs, and
// waited for by an erase that begins meanwhile, so what it stores (a file's bytes, a share's
// snapshot, an imported history) is deleted with the rest rather than outliving the erase.
// Reads and deletes hold none (the erase itself is a DELETE), nor do sign-in and sign-out.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../identity/identify";
import { userAccount } from "../users/account";
import { AccountErasingError } from "../users/erase-state";

const WRITES = new Set(["POST", "PUT", "PATCH"]);

export function accountWrites(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const identity = c.get("identity");
    if (!identity || !WRITES.has(c.req.method) || c.req.path.startsWith("/auth/")) return next();
    const account = userAccount(c.env, identity.id);
    const lease = await account.openWrite();
    if (lease === undefined) throw new AccountErasingError();
    try {
      await next();
    } finally {
      // After the answer is written: the erase waiting for it learns at once, the caller waits for nothing.
      c.executionCtx.waitUntil(account.closeWrite(lease).catch(() => undefined));
    }
  };
}
