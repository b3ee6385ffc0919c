import { describe, expect, it } from "vitest";
import { checkAddress, isIpLiteral } from "../../workers/src/outbound/address-policy.js";

/** [address, deciding range] pairs that must be refused. */
const REFUSED: Array<[string, string]> = [
  ["0.0.0.0", "thisNetwork"],
  ["0.1.2.3", "thisNetwork"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "carrierGradeNat"],
  ["100.127.255.254", "carrierGradeNat"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "linkLocal"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "ietfProtocolAssignments"],
  ["192.0.0.170", "ietfProtocolAssignments"],
  ["192.0.2.1", "documentation"],
  ["192.31.196.1", "as112"],
  ["192.52.193.1", "amt"],
  ["192.88.99.1", "6to4Relay"],
  ["192.168.1.1", "private"],
  ["192.175.48.1", "as112"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["::ffff:127.0.0.1", "ipv4Mapped(loopback)"],
  ["::ffff:7f00:1", "ipv4Mapped(loopback)"],
  ["::ffff:10.1.2.3", "ipv4Mapped(private)"],
  ["::ffff:169.254.169.254", "ipv4Mapped(linkLocal)"],
  ["::ffff:0:127.0.0.1", "ipv4Translated(loopback)"],
  ["::127.0.0.1", "ipv4Compatible(loopback)"],
  ["::8.8.8.8", "ipv4Compatible(unicast)"],
  ["64:ff9b::127.0.0.1", "nat64(loopback)"],
  ["64:ff9b::a00:1", "nat64(private)"],
  ["64:ff9b:1::8.8.8.8", "nat64LocalUse"],
  ["2002:7f00:1::1", "6to4(loopback)"],
  ["2002:c0a8:101::1", "6to4(private)"],
  ["2002:808:808::1", "6to4(unicast)"],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "teredo(loopback)"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo(documentation)"],
  ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "teredo(unicast)"],
  ["2001:db8::1", "documentation"],
  ["2001:2::1", "ietfProtocolAssignments"],
  ["2001:10::1", "ietfProtocolAssignments"],
  ["2620:4f:8000::1", "as112v6"],
  ["3fff::1", "documentation"],
  ["100::1", "discard"],
  ["fc00::1", "uniqueLocal"],
  ["fd12:3456::1", "uniqueLocal"],
  ["fe80::1", "linkLocal"],
  ["fe80::1%eth0", "scoped"],
  ["fec0::1", "deprecatedSiteLocal"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast"],
  ["5f00::1", "segmentRouting"],
  ["4000::1", "notGlobalUnicast"],
  ["example.com", "invalid"],
  ["0x7f.1", "invalid"],
  ["1.2.3", "invalid"],
  ["", "invalid"],
];

const ALLOWED = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "11.0.0.1",
  "100.128.0.1",
  "172.32.0.1",
  "192.0.3.1",
  "198.20.0.1",
  "223.255.255.254",
  "2606:4700:4700::1111",
  "2a00:1450:4001:80b::200e",
  "[2001:4860:4860::8888]",
  "::ffff:8.8.8.8",
  "64:ff9b::8.8.8.8",
];

describe("checkAddress", () => {
  it.each(REFUSED)("refuses %s (%s)", (address, range) => {
    const verdict = checkAddress(address);
    expect(verdict.allowed).toBe(false);
    expect(verdict.range).toBe(range);
  });

  it.each(ALLOWED)("allows %s", (address) => {
    const verdict = checkAddress(address);
    expect(verdict.range).toMatch(/unicast/);
    expect(verdict.allowed).toBe(true);
  });

  it("reports the IPv4 address an IPv6 form embeds", () => {
    expect(checkAddress("::ffff:127.0.0.1").embeddedIPv4).toBe("127.0.0.1");
    expect(checkAddress("2002:7f00:1::1").embeddedIPv4).toBe("127.0.0.1");
    expect(checkAddress("64:ff9b::a00:1").embeddedIPv4).toBe("10.0.0.1");
    expect(checkAddress("2001:0:4136:e378:8000:63bf:80ff:fffe").embeddedIPv4).toBe("127.0.0.1");
    expect(checkAddress("::ffff:127.0.0.1").address).toBe("::ffff:7f00:1");
    expect(checkAddress("::127.0.0.1").address).toBe("::7f00:1");
  });
});

describe("isIpLiteral", () => {
  it("recognises four-part IPv4 and IPv6, bracketed or not, and nothing else", () => {
    expect(["1.2.3.4", "::1", "[::1]", "fe80::1%eth0"].map(isIpLiteral)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["example.com", "1.2.3", "0x7f.1", "localhost"].map(isIpLiteral)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
