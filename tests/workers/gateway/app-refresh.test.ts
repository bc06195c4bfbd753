// Connected apps' sampling switch re-activates the app's object under the same generation:
// the live parts take the new permission and the app's clients stay connected (a 2025
// session is not dropped: its next request is answered, not 404). A new consent (another
// generation) still starts the app afresh, and a token of the old one is refused.
import { expect, it } from "vitest";
import { appStub, connectApp, mcpClient } from "../../fixtures/gateway-direct";

const activation = (props: Awaited<ReturnType<typeof connectApp>>, gen: number, samplingAllowed: boolean) => ({
  owner: props.identity,
  gen,
  client: { ...props.client, redirectHost: "127.0.0.1" },
  samplingAllowed,
});

it("keeps a 2025 session across a change of the sampling permission, and not across a new consent", async () => {
  const props = await connectApp("alice");
  const { client } = await mcpClient(props, "2025");
  try {
    const before = (await client.listTools()).tools.map((t) => t.name);
    await appStub(props.appId).activate(activation(props, 1, true));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(before);
    await appStub(props.appId).activate(activation(props, 1, false));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(before);
    // Another consent: generation 2. The session's token (generation 1) is refused.
    await appStub(props.appId).activate(activation(props, 2, false));
    await expect(client.listTools()).rejects.toThrow(/401|invalid_token|disconnected/);
  } finally {
    await client.close();
  }
});
