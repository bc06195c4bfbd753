// The name an owner invites someone by, as this deployment knows people (docs/people.md):
// token mode, exactly a name in ACCESS_TOKENS (its user id follows from it); Access mode, an
// email, trimmed and lower-cased (bound to an id on that person's first visit); no sign-in
// (AUTH_MODE=none), there is one person only, so nobody to invite.
import type { AuthConfig } from "../config/auth";
import { RequestError } from "../shared/errors";
import { tokenUserId } from "./tokens";

export interface Invitee {
  /** As stored and shown: the token name, or the lower-cased email. */
  name: string;
  /** Known at once in token mode; in Access mode after their first visit. */
  userId?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAX_EMAIL = 254;

/** The invitee `raw` names; throws the typed refusal when there is nobody by that name to invite. */
export function invitee(auth: AuthConfig, raw: string): Invitee {
  const given = raw.trim();
  switch (auth.mode) {
    case "token": {
      // The list of names is the deployment's: an unknown one is 404 whatever it looks like.
      const known = auth.tokens.find((t) => t.name === given);
      if (!known) throw new RequestError("unknown_person", `nobody signs in to this deployment as "${given.slice(0, 64)}"`);
      return { name: known.name, userId: tokenUserId(known.name) };
    }
    case "access": {
      const email = given.toLowerCase();
      if (email.length > MAX_EMAIL || !EMAIL.test(email)) throw new RequestError("bad_request", "name: invite someone by their email address");
      return { name: email };
    }
    default:
      throw new RequestError("invites_unavailable", "this deployment has no sign-in (AUTH_MODE=none): there is nobody else to invite");
  }
}
