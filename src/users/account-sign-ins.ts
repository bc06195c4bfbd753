// UserAccount's RPC for the person's credentials and own settings: page logins in token mode,
// OAuth sign-ins to their servers, the model providers (with keys) of their own, and their
// instructions and presets.
import { AccountApps } from "./account-apps";
import type { PendingSignIn } from "./oauth-records";
import type { ModelProviderStore, StoredUserProvider } from "./user-providers";
import type { Preset, PresetInput, PresetWrite, Profile } from "./presets";
import type { OAuthRecord } from "../mcp/oauth/provider";

export class AccountSignIns extends AccountApps {
  // ---- page logins in token mode (src/users/logins.ts); asked on every cookie request ----

  startLogin(id: string, expiresAt: number, now = Date.now()): void {
    this.logins.start(id, expiresAt, now);
  }

  loginActive(id: string, now = Date.now()): boolean {
    return this.logins.isActive(id, now);
  }

  endLogin(id: string): void {
    this.logins.end(id);
  }

  /** "Sign out everywhere": how many logins ended. */
  endAllLogins(): number {
    return this.logins.endAll();
  }

  // ---- OAuth sign-in to servers (src/users/oauth-records.ts); called by the Worker and the user's sessions ----

  oauthLoad(server: string): OAuthRecord | undefined {
    return this.oauth.load(server);
  }

  oauthSave(server: string, patch: Partial<OAuthRecord> & { serverUrl: string }): void {
    this.erase.refuse();
    const signedIn = this.oauth.load(server)?.tokens !== undefined;
    this.oauth.save(server, patch);
    // A sign-in (not a refresh of tokens already held) gives apps the server's tools.
    if (!signedIn && patch.tokens) this.ownerChanged({ oauth: server });
  }

  oauthSignedIn(): string[] {
    return this.oauth.signedInServers();
  }

  oauthForget(server: string): void {
    const signedIn = this.oauth.load(server)?.tokens !== undefined;
    this.oauth.forget(server);
    if (signedIn) this.ownerChanged({ oauth: server });
  }

  /** Signing out (or removing the server): the record, forgotten here when it held tokens, for the caller to revoke. */
  oauthTake(server: string): OAuthRecord | undefined {
    const record = this.oauth.load(server);
    if (record?.tokens) {
      this.oauth.forget(server);
      this.ownerChanged({ oauth: server });
    }
    return record;
  }

  oauthStartSignIn(state: string, server: string, session: string): void {
    this.erase.refuse();
    this.oauth.startSignIn(state, server, session);
  }

  oauthSaveVerifier(state: string, verifier: string): void {
    this.oauth.saveVerifier(state, verifier);
  }

  oauthTakeSignIn(state: string): PendingSignIn | undefined {
    return this.oauth.takeSignIn(state);
  }

  // ---- model providers of the user's own (src/users/user-providers.ts): keys included, for the Worker only ----

  listModelProviders(): StoredUserProvider[] {
    return this.providers.list();
  }

  getModelProvider(id: string): StoredUserProvider | undefined {
    return this.providers.get(id);
  }

  putModelProvider(provider: StoredUserProvider, create: boolean): ReturnType<ModelProviderStore["put"]> {
    return this.providers.put(provider, create);
  }

  deleteModelProvider(id: string): boolean {
    return this.providers.delete(id);
  }

  // ---- the person's own instructions and presets (src/users/presets.ts) ----

  /** The instructions and their version (the text only when it changed since `known`). */
  profile(known?: number): Profile {
    return this.presets.profile(known);
  }

  setInstructions(text: string): Profile {
    this.erase.refuse();
    return this.presets.setInstructions(text);
  }

  listPresets(): Preset[] {
    return this.presets.list();
  }

  getPreset(id: string): Preset | undefined {
    return this.presets.get(id);
  }

  createPreset(input: PresetInput, max: number): PresetWrite {
    this.erase.refuse();
    return this.presets.create(input, max);
  }

  updatePreset(id: string, input: PresetInput): PresetWrite {
    this.erase.refuse();
    return this.presets.update(id, input);
  }

  deletePreset(id: string): boolean {
    return this.presets.delete(id);
  }
}
