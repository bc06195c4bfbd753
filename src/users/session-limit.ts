// The per-user cap on sessions (MAX_SESSIONS_PER_USER): every session a user keeps is
// a Durable Object with its own storage, so one user cannot make them without end.
// Past the cap a new session is refused, never made room for by dropping an old one
// behind the user's back.
import { EdgehostError } from "../shared/errors";

export class TooManySessionsError extends EdgehostError {
  readonly code = "too_many_sessions";
  constructor(readonly max: number) {
    super(`You have ${max} sessions, the most one user may keep: delete old sessions to start new ones.`);
  }
}
