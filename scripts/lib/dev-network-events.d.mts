/** Turns wrangler dev's runtime Network events on or off (see dev-network-events.mjs); false while DevTools is attached. */
export function setNetworkEvents(inspectorPort: number, on: boolean, timeoutMs?: number): Promise<boolean>;
