// Host rules (src/approval/host-rule.ts) on the parsed URL against attacker inputs.
import { describe, expect, it } from "vitest";
import { hostText, normaliseHost, urlOnHost } from "../../src/approval/host-rule";

function pattern(value: string) {
  const result = normaliseHost(value);
  if (!result.ok) throw new Error(`bad host ${value}: ${result.why}`);
  return result.pattern;
}

describe("urlOnHost: example.com, https only", () => {
  const rule = pattern("example.com");
  it.each([
    ["https://example.com/x", true],
    ["https://example.com", true],
    ["https://EXAMPLE.com/x", true],
    ["https://exa%6Dple.com/x", true],
    ["https://example.com:443/x", true],
    ["https://example.com/a?b=c#d", true],
    ["https://example.com@evil.com/", false],
    ["https://user:pw@example.com/", false],
    ["https://evil.com#@example.com", false],
    ["https://evil.com/?u=https://example.com", false],
    ["https://example.com.evil.com/", false],
    ["https://evilexample.com/", false],
    ["https://www.example.com/", false],
    ["https://example.com./", false],
    ["http://example.com/", false],
    ["ftp://example.com/", false],
    ["javascript://example.com/%0aalert(1)", false],
    ["https://example.com:8443/", false],
    ["//example.com/x", false],
    ["example.com", false],
    ["not a url", false],
    ["https://93.184.215.14/", false],
  ])("%j → %s", (value, expected) => {
    expect(urlOnHost(rule, ["https"], value)).toBe(expected);
  });

  it.each([[undefined], [7], [["https://example.com/"]]])("a non-string %j never matches", (value) => {
    expect(urlOnHost(rule, ["https"], value)).toBe(false);
  });

  it("http too when the rule says so", () => {
    expect(urlOnHost(rule, ["https", "http"], "http://example.com/")).toBe(true);
    expect(urlOnHost(rule, ["https", "http"], "http://example.com:8080/")).toBe(false);
  });
});

describe("urlOnHost: *.example.com", () => {
  const rule = pattern("*.example.com");
  it.each([
    ["https://api.example.com/v1", true],
    ["https://a.b.example.com/", true],
    ["https://example.com/", false],
    ["https://api.example.com.evil.com/", false],
    ["https://apiexample.com/", false],
    ["https://api.example.com@evil.com/", false],
  ])("%j → %s", (value, expected) => {
    expect(urlOnHost(rule, ["https"], value)).toBe(expected);
  });
});

describe("urlOnHost: IDN and IP literals", () => {
  it("an IDN rule matches its punycode and its Unicode spelling", () => {
    const rule = pattern("bücher.de");
    expect(hostText(rule)).toBe("xn--bcher-kva.de");
    expect(urlOnHost(rule, ["https"], "https://bücher.de/")).toBe(true);
    expect(urlOnHost(rule, ["https"], "https://xn--bcher-kva.de/")).toBe(true);
    expect(urlOnHost(rule, ["https"], "https://bucher.de/")).toBe(false);
  });

  it("an IP literal matches only when the rule is that address", () => {
    const ip = pattern("192.0.2.1");
    expect(urlOnHost(ip, ["https"], "https://192.0.2.1/")).toBe(true);
    expect(urlOnHost(ip, ["https"], "https://192.0.2.2/")).toBe(false);
    expect(urlOnHost(pattern("example.com"), ["https"], "https://[::1]/")).toBe(false);
    expect(urlOnHost(pattern("*.example.com"), ["https"], "http://2130706433/")).toBe(false);
    const v6 = pattern("[2001:db8::1]");
    expect(urlOnHost(v6, ["https"], "https://[2001:db8:0::1]/x")).toBe(true);
  });
});

describe("normaliseHost", () => {
  it("lower-cases the host", () => {
    expect(hostText(pattern("Example.COM"))).toBe("example.com");
    expect(hostText(pattern("*.Example.com"))).toBe("*.example.com");
  });

  it.each([
    ["https://example.com"],
    ["example.com/path"],
    ["example.com:8443"],
    ["user@example.com"],
    ["example.com."],
    ["*.192.0.2.1"],
    ["localhost"],
    [""],
    ["exa mple.com"],
    ["*."],
  ])("refuses %j as a rule's host", (value) => {
    expect(normaliseHost(value).ok).toBe(false);
  });
});
