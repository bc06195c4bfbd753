// Where the deployment's operations object lives, and who may read it: the users named in
// ADMIN_USERS (as the deployment knows them: the Access email, the token's name, or
// "local"). Unset, nobody is an operator and /admin is a 404 like any unknown path.
import type { Env } from "../config/env";
import type { Settings } from "../config/settings";
import type { Operations } from "./Operations";

export function operations(env: Pick<Env, "OPERATIONS">): DurableObjectStub<Operations> {
  return env.OPERATIONS.get(env.OPERATIONS.idFromName("deployment")) as DurableObjectStub<Operations>;
}

export function isOperator(settings: Pick<Settings, "ADMIN_USERS">, name: string): boolean {
  return settings.ADMIN_USERS.includes(name.toLowerCase());
}
