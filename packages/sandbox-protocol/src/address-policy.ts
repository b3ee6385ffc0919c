/**
 * Which IP addresses and host names outbound traffic may reach (docs/outbound.md#public-unicast):
 * the API's `http_request` guard and the sandbox host's egress proxy of the `browser` builtin
 * share these rules. No Node APIs (it runs in workerd too). The decision on an address is
 * made on a parsed address, never on a string pattern: ipaddr.js classifies it, and the IANA
 * special-purpose registries of both families (RFC 6890 and its updates) are checked on top, so
 * that a range the library files under `unicast` still cannot slip through.
 */
import ipaddr from "ipaddr.js";

/** The verdict on one address. */
export interface AddressVerdict {
  /** Canonical text of the address (RFC 5952 for IPv6). */
  address: string;
  allowed: boolean;
  /** Name of the range that decided, e.g. `loopback`, `private`, `6to4`, `unicast`. */
  range: string;
  /** IPv4 address carried inside an IPv6 address (mapped, NAT64, 6to4, Teredo, compatible). */
  embeddedIPv4?: string;
}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

function table(entries: Array<[string, string]>): Array<[Cidr, string]> {
  return entries.map(([cidr, name]) => [ipaddr.parseCIDR(cidr), name]);
}

/** IANA IPv4 Special-Purpose Address Registry, plus multicast, class E and broadcast. */
const IPV4_SPECIAL = table([
  ["0.0.0.0/8", "thisNetwork"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrierGradeNat"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "linkLocal"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "ietfProtocolAssignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.31.196.0/24", "as112"],
  ["192.52.193.0/24", "amt"],
  ["192.88.99.0/24", "6to4Relay"],
  ["192.168.0.0/16", "private"],
  ["192.175.48.0/24", "as112"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
  ["255.255.255.255/32", "broadcast"],
]);

/**
 * IANA IPv6 Special-Purpose Address Registry entries inside 2000::/3 (everything outside 2000::/3
 * is refused anyway: loopback, unspecified, mapped, NAT64, discard, ULA, link-local, site-local,
 * multicast, ...).
 */
const IPV6_SPECIAL_GLOBAL = table([
  ["2001::/23", "ietfProtocolAssignments"],
  ["2001:db8::/32", "documentation"],
  ["2002::/16", "6to4"],
  ["2620:4f:8000::/48", "as112v6"],
  ["3fff::/20", "documentation"],
]);

const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const NAT64_LOCAL = ipaddr.parseCIDR("64:ff9b:1::/48");
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");
const IPV4_MAPPED = ipaddr.parseCIDR("::ffff:0:0/96");
const IPV4_TRANSLATED = ipaddr.parseCIDR("::ffff:0:0:0/96");
const SIX_TO_FOUR = ipaddr.parseCIDR("2002::/16");
const TEREDO = ipaddr.parseCIDR("2001::/32");

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function matchTable(addr: ipaddr.IPv4 | ipaddr.IPv6, entries: Array<[Cidr, string]>) {
  for (const [cidr, name] of entries) {
    if (addr.kind() === cidr[0].kind() && addr.match(cidr)) return name;
  }
  return undefined;
}

function checkV4(addr: ipaddr.IPv4): AddressVerdict {
  const address = addr.toString();
  const special = matchTable(addr, IPV4_SPECIAL);
  if (special) return { address, allowed: false, range: special };
  const range = addr.range();
  return { address, allowed: range === "unicast", range };
}

function embedded(
  address: string,
  inner: ipaddr.IPv4,
  kind: string,
  judgeByInner: boolean,
): AddressVerdict {
  const v4 = checkV4(inner);
  const allowed = judgeByInner && v4.allowed;
  return { address, allowed, range: `${kind}(${v4.range})`, embeddedIPv4: v4.address };
}

function checkV6(addr: ipaddr.IPv6): AddressVerdict {
  const address = addr.toRFC5952String();
  const p = addr.parts;
  const low = v4FromWords(p[6] ?? 0, p[7] ?? 0);
  // Forms that carry an IPv4 address. Mapped/translated and well-known NAT64 reach exactly the
  // embedded IPv4 host, so they are judged by it; the deprecated or obfuscating ones are refused.
  if (addr.match(IPV4_MAPPED)) return embedded(address, low, "ipv4Mapped", true);
  if (addr.match(IPV4_TRANSLATED)) return embedded(address, low, "ipv4Translated", true);
  if (addr.match(NAT64_WELL_KNOWN)) return embedded(address, low, "nat64", true);
  if (addr.match(NAT64_LOCAL)) return { address, allowed: false, range: "nat64LocalUse" };
  if (addr.match(IPV4_COMPATIBLE)) {
    const range = addr.range();
    if (range === "loopback" || range === "unspecified") return { address, allowed: false, range };
    return embedded(address, low, "ipv4Compatible", false);
  }
  if (addr.match(SIX_TO_FOUR)) {
    return embedded(address, v4FromWords(p[1] ?? 0, p[2] ?? 0), "6to4", false);
  }
  if (addr.match(TEREDO)) {
    // RFC 4380: the client's IPv4 address is the last 32 bits, bit-inverted.
    const client = v4FromWords(~(p[6] ?? 0) & 0xffff, ~(p[7] ?? 0) & 0xffff);
    return embedded(address, client, "teredo", false);
  }
  if (!addr.match(GLOBAL_UNICAST)) {
    const range = addr.range();
    return { address, allowed: false, range: range === "unicast" ? "notGlobalUnicast" : range };
  }
  const special = matchTable(addr, IPV6_SPECIAL_GLOBAL);
  if (special) return { address, allowed: false, range: special };
  const range = addr.range();
  return { address, allowed: range === "unicast", range };
}

/**
 * Rewrites a dotted IPv4 tail of an IPv6 address as two hex groups. ipaddr.js reads `::a.b.c.d`
 * as the IPv4-mapped `::ffff:a.b.c.d`; RFC 4291 §2.5.5.1 makes it IPv4-compatible (`::a.b.c.d`
 * = `::XXXX:XXXX`), which is what a socket would connect to.
 */
function hexTail(text: string): string {
  const m = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (!m || !ipaddr.IPv4.isValidFourPartDecimal(m[2] ?? "")) return text;
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(m[2] ?? "").octets;
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * Decides whether one resolved or literal address is public unicast.
 * @param text an IPv4 address in four-part decimal, or an IPv6 address (brackets and a zone id
 *   are accepted; a zone id always means a non-global address).
 * @returns the verdict; text that is not an IP address yields `allowed: false`, range `invalid`.
 */
export function checkAddress(text: string): AddressVerdict {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return checkV4(ipaddr.IPv4.parse(bare));
  if (ipaddr.IPv6.isValid(bare)) {
    const addr = ipaddr.IPv6.parse(hexTail(bare));
    if (addr.zoneId) return { address: bare, allowed: false, range: "scoped" };
    return checkV6(addr);
  }
  return { address: text, allowed: false, range: "invalid" };
}

/** True when `text` is an IPv4 (four-part decimal) or IPv6 literal, brackets allowed. */
export function isIpLiteral(text: string): boolean {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare);
}

/**
 * Names refused without resolution: special-use and private-use names that never denote a public
 * host (RFC 6761 `localhost`, RFC 6762 `.local`, RFC 8375 `.home.arpa`, ICANN's `.internal`), the
 * reverse-mapping zones under `.arpa`, and single-label names (they only resolve on private
 * resolvers or search domains).
 * Input: a host name, lower case, without brackets or a trailing dot.
 * Output: why the name is refused (e.g. `localhost`, `.local name`, `single-label name`), or
 * undefined when it may be resolved.
 */
export function refusedNameReason(hostname: string): string | undefined {
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return "localhost";
  for (const suffix of [".local", ".internal", ".arpa"]) {
    if (hostname.endsWith(suffix) || hostname === suffix.slice(1)) return `${suffix} name`;
  }
  if (!hostname.includes(".")) return "single-label name";
  return undefined;
}
