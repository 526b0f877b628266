import ipaddr from 'ipaddr.js';

/** The address ranges webhooks are never delivered to, and the words that name each to a user (addresses.ts applies them). */

/**
 * The refused ranges, most specific first (the first match names the rule). ipaddr.js knows them
 * too, but neither by the words a user should read nor by their prefixes; its own classification
 * still runs after this list, so a range it learns of later is refused even before it is added here.
 */
const REFUSED: [cidr: string, what: string][] = [
  ['0.0.0.0/8', 'an unspecified address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'a reserved address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.31.196.0/24', 'a reserved address'],
  ['192.52.193.0/24', 'a reserved address'],
  ['192.88.99.0/24', 'a 6to4 relay address'],
  ['192.168.0.0/16', 'a private address'],
  ['192.175.48.0/24', 'a reserved address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'a broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::/96', 'an IPv4-compatible address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard address'],
  ['2001::/32', 'a Teredo address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2001::/23', 'a reserved address'],
  ['2002::/16', 'a 6to4 address'],
  ['2620:4f:8000::/48', 'a reserved address'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
];
/**
 * The ranges, parsed at the first address checked, not at the module's load: a route saving a URL by
 * host name never checks one (its deliveries do, after DNS), and parsing them was about 5 ms of every
 * webhook function's cold start.
 */
let parsed:
  | {
      rules: { range: [ipaddr.IPv4 | ipaddr.IPv6, number]; what: string }[];
      globalUnicast: [ipaddr.IPv6, number];
      ipv4Mapped: [ipaddr.IPv6, number];
      nat64: [ipaddr.IPv6, number];
    }
  | undefined;
function ranges(): NonNullable<typeof parsed> {
  parsed ??= {
    rules: REFUSED.map(([cidr, what]) => ({ range: ipaddr.parseCIDR(cidr), what: `${what} (${cidr})` })),
    globalUnicast: ipaddr.IPv6.parseCIDR('2000::/3'),
    ipv4Mapped: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'),
    nat64: ipaddr.IPv6.parseCIDR('64:ff9b::/96'),
  };
  return parsed;
}

/** What kind of refused address `address` is ("a private address (10.0.0.0/8)"), or undefined if public. */
export function refusal(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  const { rules, globalUnicast, ipv4Mapped, nat64 } = ranges();
  if (address.kind() === 'ipv6') {
    const form = address.match(ipv4Mapped) ? 'an IPv4-mapped' : address.match(nat64) ? 'a NAT64' : undefined;
    if (form) {
      const what = refusal(new ipaddr.IPv4(address.toByteArray().slice(12)));
      return what && `${form} form of ${what}`;
    }
  }
  const rule = rules.find(({ range }) => address.kind() === range[0].kind() && address.match(range));
  if (rule) return rule.what;
  if (address.range() !== 'unicast') return 'a special-purpose address';
  if (address.kind() === 'ipv6' && !address.match(globalUnicast)) return 'outside global unicast addresses (2000::/3)';
  return undefined;
}
