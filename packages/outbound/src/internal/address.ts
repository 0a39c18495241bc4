/**
 * Which IP addresses and host names may receive webhooks. Only globally routable unicast
 * addresses are public; everything else (loopback, RFC 1918, link-local and the cloud
 * metadata address 169.254.169.254, unique-local, CGNAT, multicast, reserved, transition
 * ranges that may embed an internal IPv4 address...) is refused.
 */
import ipaddr from "ipaddr.js"

/** What an address is, for the reason of a refusal; `"public"` when it may be used. */
export type AddressClass = "public" | "invalid" | string

/** IPv6 ranges ipaddr.js calls `unicast` that must still be refused. */
const EXTRA_IPV6_RANGES: ReadonlyArray<readonly [string, ipaddr.IPv6, number]> = [
  // Deprecated IPv4-compatible addresses (::a.b.c.d), which may reach an IPv4 address.
  ["IPv4-compatible", ipaddr.IPv6.parse("::"), 96],
  // RFC 8215 local-use NAT64 prefix: embeds an IPv4 address.
  ["NAT64", ipaddr.IPv6.parse("64:ff9b:1::"), 48],
  // Deprecated site-local addresses (RFC 3879).
  ["site-local", ipaddr.IPv6.parse("fec0::"), 10]
]

const LABELS: Record<string, string> = {
  loopback: "loopback",
  private: "private",
  linkLocal: "link-local",
  uniqueLocal: "unique-local",
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  carrierGradeNat: "carrier-grade NAT",
  reserved: "reserved",
  benchmarking: "benchmarking",
  amt: "AMT",
  as112: "AS112",
  as112v6: "AS112",
  ipv4Mapped: "IPv4-mapped",
  rfc6145: "IPv4-translated",
  rfc6052: "NAT64",
  "6to4": "6to4",
  teredo: "Teredo",
  discard: "discard-only",
  deprecated: "deprecated",
  orchid2: "ORCHIDv2",
  droneRemoteIdProtocolEntityTags: "drone remote ID"
}

/**
 * Classifies an IP address: `"public"` for global unicast, otherwise a human label of the
 * range (`"loopback"`, `"private"`, `"link-local"`...) or `"invalid"`. IPv4-mapped IPv6
 * addresses (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry.
 */
export const classifyAddress = (ip: string): AddressClass => {
  let address: ipaddr.IPv4 | ipaddr.IPv6
  try {
    address = ipaddr.process(ip)
  } catch {
    return "invalid"
  }
  const range = address.range()
  if (range !== "unicast") return LABELS[range] ?? "non-public"
  if (address.kind() === "ipv6") {
    for (const [label, network, bits] of EXTRA_IPV6_RANGES) {
      if (address.match(network, bits)) return label
    }
  }
  return "public"
}

/** True only for a valid, globally routable unicast address. */
export const isPublicAddress = (ip: string): boolean => classifyAddress(ip) === "public"

/** "a private address 10.0.0.5", "an unspecified address 0.0.0.0", "an invalid address foo". */
export const describeAddress = (ip: string, kind: AddressClass = classifyAddress(ip)): string =>
  `${/^[aeiou]/i.test(kind) ? "an" : "a"} ${kind} address ${ip}`

/** Names of cloud metadata services, refused whatever they resolve to. */
const METADATA_HOSTNAMES: ReadonlySet<string> = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.internal",
  "instance-data",
  "instance-data.ec2.internal",
  "localhost"
])

/** A cloud metadata host name (or `localhost`), compared case-insensitively and without a trailing dot. */
export const isForbiddenHostname = (hostname: string): boolean => {
  const name = hostname.toLowerCase().replace(/\.+$/, "")
  return METADATA_HOSTNAMES.has(name) || name.endsWith(".localhost")
}
