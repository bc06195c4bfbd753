// UserAccount's RPC for what reaches the person outside the page: their push devices,
// the apps connected to /mcp, and the approvals an app's held call waits for.
import { AccountBase } from "./account-base";
import type { AppConnection, ConnectedApp } from "./connected-apps";
import type { OpenQuestion, QuestionAnswer, QuestionAsked } from "./gateway-questions";
import type { DeviceView, NewDevice } from "./push-devices";
import { type DeliverySummary, deliverNotice } from "./push-delivery";
import type { PushDetail, PushNotice } from "../push/notice";
import type { VapidKeys } from "../push/vapid";

export class AccountApps extends AccountBase {
  // ---- push notifications (src/users/push-devices.ts, push-delivery.ts, src/http/push.ts) ----

  addPushDevice(device: NewDevice, cap: number, now = Date.now()): Promise<{ ok: true; id: string } | { ok: false; limit: number }> {
    this.erase.refuse();
    return this.pushDevices.add(device, cap, now);
  }

  /** `dropped`: notifications PUSH_PER_HOUR kept from the devices so far (push-cap.ts). */
  listPushDevices(): { detail: PushDetail; devices: DeviceView[]; dropped: { count: number; lastAt: number | null } } {
    return { detail: this.pushDevices.detail(), devices: this.pushDevices.list(), dropped: this.pushCap.dropped() };
  }

  removePushDevice(id: string): boolean {
    return this.pushDevices.remove(id);
  }

  setPushDetail(detail: PushDetail): void {
    this.erase.refuse();
    this.pushDevices.setDetail(detail);
  }

  /**
   * Pushes `notice` to the person's devices (or the one named), with the chat's title added here.
   * `perHour`: PUSH_PER_HOUR, the cap it counts against (push-cap.ts); past it nothing is sent
   * and the summary says `dropped`. Without it (a Test push) it is not counted.
   */
  async pushNotice(notice: PushNotice, vapid: VapidKeys, options: { only?: string; perHour?: number; now?: number } = {}): Promise<DeliverySummary> {
    const { only, perHour, now = Date.now() } = options;
    if (perHour !== undefined && this.pushDevices.count() > 0 && !this.pushCap.take(perHour, now))
      return { devices: this.pushDevices.count(), delivered: 0, removed: 0, failed: 0, dropped: true };
    // A chat shared with this person is not theirs to title: it is named by whose it is.
    const shared = this.sharedChats.list().find((c) => c.sessionId === notice.session);
    const title = this.sessions.title(notice.session)?.title ?? (shared ? `${shared.ownerName}'s chat` : undefined);
    return deliverNotice(this.pushDevices, notice, title, vapid, now, only);
  }

  // ---- apps connected to /mcp (src/users/connected-apps.ts, src/http/connect.ts, src/http/connected-apps.ts) ----

  connectApp(app: AppConnection, now = Date.now()): { ok: true; gen: number } | { ok: false } {
    this.erase.refuse();
    return this.apps.connect(app, now);
  }

  listApps(): ConnectedApp[] {
    return this.apps.list();
  }

  getApp(appId: string): ConnectedApp | undefined {
    return this.apps.get(appId);
  }

  setAppSampling(appId: string, sampling: boolean): ConnectedApp | undefined {
    return this.apps.setSampling(appId, sampling);
  }

  /** The app's object served a call (GatewayApp, at most once a minute): Connected apps shows it as last use. */
  appUsed(appId: string, at = Date.now()): void {
    this.apps.used(appId, at);
  }

  /** An app's clients listen for list_changed until `until` (0: no longer); renewed by the app while a stream is open. */
  watchApp(appId: string, until: number, now = Date.now()): void {
    this.watchers.watch(appId, until, now);
  }

  removeApp(appId: string): ConnectedApp | undefined {
    this.questions.dropApp(appId);
    return this.apps.remove(appId);
  }

  // ---- approvals an app's held call waits for (src/users/gateway-questions.ts, src/gateway/held-approval.ts) ----

  gatewayQuestionAsk(asked: QuestionAsked, now = Date.now()): boolean {
    return this.apps.get(asked.appId) !== undefined && this.questions.ask(asked, now);
  }

  gatewayQuestionsOpen(now = Date.now()): OpenQuestion[] {
    return this.questions.open(now);
  }

  gatewayQuestionAnswer(appId: string, id: string, now = Date.now()): QuestionAnswer {
    return this.questions.answer(appId, id, now);
  }

  /** What the page's bootstrap says of Connected apps: poll for questions only when there are apps. */
  appsSummary(now = Date.now()): { connected: number; questions: number } {
    return { connected: this.apps.list().length, questions: this.questions.openCount(now) };
  }
}
