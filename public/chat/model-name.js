// How an answer's model is named to a person. A deployment's model is `provider/model`,
// as the picker lists it; a model on the person's own key is named by their provider's
// own name (the label they gave it, else the id they chose: what the picker shows as
// "… (yours)") and "your key", never the Worker's internal `user:` id.
import { state } from "../core/state.js";

/** The prefix the Worker gives a person's own providers (src/users/user-providers.ts). */
const OWN = "user:";

/** @param {string} ref `provider/model`, as an answer's `model` says it */
export function modelName(ref) {
  if (!ref.startsWith(OWN)) return ref;
  const slash = ref.indexOf("/");
  if (slash < 0) return ref.slice(OWN.length);
  const provider = ref.slice(0, slash);
  const known = state.models.find((option) => option.provider === provider);
  return `${known?.providerLabel ?? provider.slice(OWN.length)}/${ref.slice(slash + 1)} · your key`;
}
