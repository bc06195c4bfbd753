// The addresses a user's own server may not have in a deployed Worker (issue 20.6).
import { describe, expect, it } from "vitest";
import { serverUrlRefusal } from "../../src/servers/url-policy";

const deployed = { deployed: true, allowPrivate: false, workerHost: "chat.example.com" };

describe("serverUrlRefusal", () => {
  it.each([
    ["http://127.0.0.1:8787/mcp", "loopback"],
    ["http://127.1/mcp", "loopback"],
    ["http://2130706433/mcp", "loopback"],
    ["http://0x7f000001/mcp", "loopback"],
    ["http://0177.0.0.1/mcp", "loopback"],
    ["http://[::1]:9229/json", "loopback"],
    ["http://[::ffff:127.0.0.1]/mcp", "loopback"],
    ["http://localhost:8787/mcp", "localhost"],
    ["http://api.localhost/mcp", "localhost"],
    ["http://LOCALHOST./mcp", "localhost"],
    ["http://10.1.2.3/mcp", "private addresses (10.0.0.0/8)"],
    ["http://172.20.0.1/mcp", "172.16.0.0/12"],
    ["http://192.168.1.10/mcp", "192.168.0.0/16"],
    ["http://169.254.169.254/latest/meta-data", "link-local"],
    ["http://[::ffff:a9fe:a9fe]/", "link-local"],
    ["http://100.100.1.1/mcp", "100.64.0.0/10"],
    ["http://0.0.0.0:8787/mcp", "unspecified"],
    ["http://[::]/mcp", "unspecified"],
    ["http://[fd00::1]/mcp", "unique-local"],
    ["http://[fe80::1]/mcp", "link-local"],
    ["https://chat.example.com/api/tools/x", "this Worker's own address"],
    ["http://intranet:8080/mcp", "single-label"],
    ["http://nas./mcp", "single-label"],
    ["http://printer.local/mcp", ".local"],
    ["http://metadata.google.internal/computeMetadata", ".internal"],
    ["http://router.home.arpa/", ".home.arpa"],
    ["http://box.lan/mcp", ".lan"],
    ["http://wiki.corp/mcp", ".corp"],
    ["http://a.b.intranet/mcp", ".intranet"],
  ])("refuses %s (%s)", (url, rule) => {
    expect(serverUrlRefusal(url, deployed)).toContain(rule);
  });

  it.each(["https://mcp.example.org/mcp", "https://8.8.8.8/mcp", "http://172.32.0.1/mcp", "http://[2606:4700::1111]/mcp", "https://100.128.0.1/"])(
    "lets %s through",
    (url) => {
      expect(serverUrlRefusal(url, deployed)).toBeUndefined();
    },
  );

  it("lets everything through on loopback development and where the deployment allows private addresses", () => {
    expect(serverUrlRefusal("http://127.0.0.1:9229/json", { ...deployed, deployed: false })).toBeUndefined();
    expect(serverUrlRefusal("http://10.0.0.5/mcp", { ...deployed, allowPrivate: true })).toBeUndefined();
  });
});
