import { quoted } from '#domain/quoted';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { addressProblem, guardedLookup, type LookupAll, resolutionProblem, targetPolicy, urlProblem } from '#webhooks/addresses';

const deployed = { allowPrivate: false };
const developer = { allowPrivate: true };
const PUBLIC_ONLY = 'webhooks deliver only to public internet addresses';

/** A fake DNS: each call answers the next of `answers` (the last one again once they run out). */
function fakeDns(...answers: string[][]): LookupAll & { calls: number } {
  const dns = async () => {
    const addresses = answers[Math.min(dns.calls++, answers.length - 1)] ?? [];
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  dns.calls = 0;
  return dns;
}

function failingDns(code: string): LookupAll {
  return async () => {
    throw Object.assign(new Error(`queryA ${code}`), { code });
  };
}

/** What Node's net.connect gets from a lookup function, as a promise. */
function resolveWith(lookup: LookupFunction, hostname: string, options: { all?: boolean; family?: number } = {}) {
  return new Promise<{ address: string | LookupAddress[]; family?: number }>((resolve, reject) =>
    lookup(hostname, options, (error, address, family) => (error ? reject(error) : resolve({ address, family }))),
  );
}

describe('public addresses are allowed, every other range is refused', () => {
  test.each([
    ['0.255.255.255', 'an unspecified address (0.0.0.0/8)', '1.0.0.0'],
    ['10.0.0.0', 'a private address (10.0.0.0/8)', '9.255.255.255'],
    ['10.255.255.255', 'a private address (10.0.0.0/8)', '11.0.0.0'],
    ['100.64.0.0', 'a carrier-grade NAT address (100.64.0.0/10)', '100.63.255.255'],
    ['100.127.255.255', 'a carrier-grade NAT address (100.64.0.0/10)', '100.128.0.0'],
    ['127.0.0.0', 'a loopback address (127.0.0.0/8)', '126.255.255.255'],
    ['127.255.255.255', 'a loopback address (127.0.0.0/8)', '128.0.0.0'],
    ['169.254.0.0', 'a link-local address (169.254.0.0/16)', '169.253.255.255'],
    ['169.254.255.255', 'a link-local address (169.254.0.0/16)', '169.255.0.0'],
    ['172.16.0.0', 'a private address (172.16.0.0/12)', '172.15.255.255'],
    ['172.31.255.255', 'a private address (172.16.0.0/12)', '172.32.0.0'],
    ['192.0.0.255', 'a reserved address (192.0.0.0/24)', '191.255.255.255'],
    ['192.0.2.0', 'a documentation address (192.0.2.0/24)', '192.0.1.255'],
    ['192.88.99.1', 'a 6to4 relay address (192.88.99.0/24)', '192.88.98.255'],
    ['192.168.0.0', 'a private address (192.168.0.0/16)', '192.167.255.255'],
    ['192.168.255.255', 'a private address (192.168.0.0/16)', '192.169.0.0'],
    ['198.18.0.0', 'a benchmarking address (198.18.0.0/15)', '198.17.255.255'],
    ['198.19.255.255', 'a benchmarking address (198.18.0.0/15)', '198.20.0.0'],
    ['198.51.100.0', 'a documentation address (198.51.100.0/24)', '198.51.99.255'],
    ['203.0.113.255', 'a documentation address (203.0.113.0/24)', '203.0.114.0'],
    ['224.0.0.0', 'a multicast address (224.0.0.0/4)', '223.255.255.255'],
    ['240.0.0.0', 'a reserved address (240.0.0.0/4)', '8.8.8.8'],
    ['255.255.255.255', 'a broadcast address (255.255.255.255/32)', '1.1.1.1'],
  ])('IPv4: %s is refused as %s; %s beside it is allowed', (refused, what, allowed) => {
    expect(addressProblem(refused, deployed)).toBe(`${refused} is ${what}; ${PUBLIC_ONLY}`);
    expect(addressProblem(allowed, deployed)).toBeUndefined();
  });

  test('the cloud metadata address 169.254.169.254 is refused', () => {
    expect(addressProblem('169.254.169.254', deployed)).toMatch(/^169\.254\.169\.254 is a link-local address \(169\.254\.0\.0\/16\)/);
  });

  test.each([
    ['::', 'an unspecified address (::/128)'],
    ['::1', 'a loopback address (::1/128)'],
    ['::7f00:1', 'an IPv4-compatible address (::/96)'],
    ['::808:808', 'an IPv4-compatible address (::/96)'],
    ['::ffff:7f00:1', 'an IPv4-mapped form of a loopback address (127.0.0.0/8)'],
    ['::ffff:a9fe:a9fe', 'an IPv4-mapped form of a link-local address (169.254.0.0/16)'],
    ['64:ff9b::a00:1', 'a NAT64 form of a private address (10.0.0.0/8)'],
    ['64:ff9b::7f00:1', 'a NAT64 form of a loopback address (127.0.0.0/8)'],
    ['64:ff9b:1::808:808', 'a local-use NAT64 address (64:ff9b:1::/48)'],
    ['100::1', 'a discard address (100::/64)'],
    ['2001::7f00:1', 'a Teredo address (2001::/32)'],
    ['2001:2::1', 'a reserved address (2001::/23)'],
    ['2001:1ff:ffff::1', 'a reserved address (2001::/23)'],
    ['2001:db8::1', 'a documentation address (2001:db8::/32)'],
    ['2002:808:808::1', 'a 6to4 address (2002::/16)'],
    ['2002:7f00:1::1', 'a 6to4 address (2002::/16)'],
    ['3fff::1', 'a documentation address (3fff::/20)'],
    ['3fff:fff:ffff::1', 'a documentation address (3fff::/20)'],
    ['fc00::1', 'a unique-local address (fc00::/7)'],
    ['fd00::1', 'a unique-local address (fc00::/7)'],
    ['fe80::1', 'a link-local address (fe80::/10)'],
    ['febf:ffff::1', 'a link-local address (fe80::/10)'],
    ['fec0::1', 'a site-local address (fec0::/10)'],
    ['ff02::1', 'a multicast address (ff00::/8)'],
    ['1fff:ffff::1', 'outside global unicast addresses (2000::/3)'],
    ['4000::1', 'outside global unicast addresses (2000::/3)'],
  ])('IPv6: %s is refused as %s', (ip, what) => {
    expect(addressProblem(ip, deployed)).toBe(`${ip} is ${what}; ${PUBLIC_ONLY}`);
  });

  test.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '2001:200::1', '3fff:1000::1', '2000::1', '3ffe::1'])(
    'IPv6: the global unicast address %s is allowed',
    (ip) => expect(addressProblem(ip, deployed)).toBeUndefined(),
  );

  test('the IPv4-mapped and NAT64 forms of a public IPv4 address are allowed: they reach that address', () => {
    expect(addressProblem('::ffff:808:808', deployed)).toBeUndefined();
    expect(addressProblem('64:ff9b::808:808', deployed)).toBeUndefined();
  });

  test('a link-local address with a zone index is refused', () => {
    expect(addressProblem('fe80::1%eth0', deployed)).toMatch(/link-local address \(fe80::\/10\)/);
  });

  test('something that is not an IP address is refused, whatever the policy', () => {
    expect(addressProblem('example.com', deployed)).toBe('example.com is not an IP address');
    expect(addressProblem('0x7f.1', developer)).toBe('0x7f.1 is not an IP address');
  });

  test('a developer policy allows every address', () => {
    for (const ip of ['127.0.0.1', '10.0.0.5', '169.254.169.254', '::1', 'fd00::1', '::ffff:7f00:1']) {
      expect(addressProblem(ip, developer)).toBeUndefined();
    }
  });
});

/** The refused IPv4 ranges, as the issue lists them: the properties below draw from them. */
const REFUSED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

const toNumber = (ip: string) => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
const dotted = (n: number) => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
const hex = (n: number) => `${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}`;
/** Any address of a refused range, as a number. */
const refusedV4 = fc.tuple(fc.constantFrom(...REFUSED_V4), fc.nat({ max: 0xffffffff })).map(([cidr, offset]) => {
  const [base = '', bits = ''] = cidr.split('/');
  return toNumber(base) + (offset % 2 ** (32 - Number(bits)));
});

describe('a refused IPv4 address is refused in every form', () => {
  test('any address of a refused range is refused, as itself and as its IPv4-mapped IPv6 form', () => {
    fc.assert(
      fc.property(refusedV4, (n) => {
        const ip = dotted(n);
        expect(addressProblem(ip, deployed)).toBeDefined();
        expect(addressProblem(`::ffff:${ip}`, deployed)).toBeDefined();
        expect(addressProblem(`::ffff:${hex(n)}`, deployed)).toBeDefined();
        expect(urlProblem(`https://[::ffff:${ip}]/`, deployed)).toBeDefined();
        expect(urlProblem(`https://${n}/`, deployed)).toBeDefined();
      }),
    );
  });

  test('any address of a refused range is refused in its NAT64, IPv4-compatible, 6to4 and Teredo forms', () => {
    fc.assert(
      fc.property(refusedV4, (n) => {
        for (const form of [`64:ff9b::${hex(n)}`, `64:ff9b:1::${hex(n)}`, `::${hex(n)}`, `2002:${hex(n)}::1`, `2001:0:${hex(n)}::1`]) {
          expect(addressProblem(form, deployed)).toBeDefined();
        }
      }),
    );
  });
});

describe('the URL: syntax, scheme, credentials, names and literal hosts', () => {
  test('a public https URL is allowed', () => {
    expect(urlProblem('https://hooks.example.com/webhooks?source=gitscrum', deployed)).toBeUndefined();
    expect(urlProblem('https://hooks.example.com:8443/x', deployed)).toBeUndefined();
    expect(urlProblem('https://[2606:4700:4700::1111]/', deployed)).toBeUndefined();
  });

  test.each([
    'https://0x7f.1/',
    'https://2130706433/',
    'https://017700000001/',
    'https://127.1/',
    'https://0177.0.0.1/',
    'https://%31%32%37.0.0.1/',
  ])('the encoded loopback address %s is refused as 127.0.0.1', (url) =>
    expect(urlProblem(url, deployed)).toBe(`127.0.0.1 is a loopback address (127.0.0.0/8); ${PUBLIC_ONLY}`),
  );

  test.each([
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is an IPv4-mapped form of a loopback address'],
    ['https://[::ffff:7f00:1]/', '::ffff:7f00:1 is an IPv4-mapped form of a loopback address'],
    ['https://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1 is an IPv4-mapped form of a loopback address'],
    ['https://[64:ff9b::a00:1]/', '64:ff9b::a00:1 is a NAT64 form of a private address'],
    ['https://[::127.0.0.1]/', '::7f00:1 is an IPv4-compatible address'],
    ['https://[fd00::1]/', 'fd00::1 is a unique-local address'],
    ['https://[::1]:8080/', '::1 is a loopback address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    ['https://0.0.0.0/', '0.0.0.0 is an unspecified address'],
    ['https://10.0.0.5/', '10.0.0.5 is a private address (10.0.0.0/8)'],
  ])('the literal host of %s is judged as an address: %s', (url, message) => {
    expect(urlProblem(url, deployed)).toMatch(new RegExp(`^${message.replace(/[.()[\]]/g, '\\$&')}`));
  });

  test('an IPv6 literal with a zone index is not a URL WHATWG accepts', () => {
    expect(urlProblem('https://[fe80::1%25eth0]/', deployed)).toBe(
      '"https://[fe80::1%25eth0]/" is not an absolute URL; write one such as https://example.com/webhooks',
    );
  });

  test.each([
    'https://localhost/',
    'https://LOCALHOST/',
    'https://localhost./',
    'https://api.localhost/',
    'https://printer.local/',
    'https://metadata.google.internal/',
    'https://router.home.arpa/',
  ])('the local name in %s is refused without asking DNS', (url) =>
    expect(urlProblem(url, deployed)).toMatch(new RegExp(`is a local name; ${PUBLIC_ONLY}$`)),
  );

  test('a single-label name (which the resolver completes with its search domains) is refused', () => {
    expect(urlProblem('https://metadata/', deployed)).toBe(`metadata is not a fully qualified domain name; ${PUBLIC_ONLY}`);
  });

  test('credentials are never repeated, not even in the message of another rule (spaces, length, form)', () => {
    for (const url of [
      'https://user:hun ter2@example.com/',
      `https://user:hunter2@example.com/${'a'.repeat(3000)}`,
      'https://u:hunter2@[::1/',
    ]) {
      for (const policy of [deployed, developer]) expect(urlProblem(url, policy)).not.toContain('hunter2');
    }
  });

  test('credentials in the URL are refused, and not repeated in the message', () => {
    for (const url of ['https://user:pass@example.com/', 'https://user@example.com/', 'https://:secret@example.com/']) {
      const problem = urlProblem(url, developer);
      expect(problem).toBe('a user name or password (credentials) before @example.com is not allowed in a webhook URL');
      expect(problem).not.toMatch(/user:|:pass|:secret|user@/);
    }
  });

  test('http is refused: webhooks are sent over https', () => {
    expect(urlProblem('http://hooks.example.com/', deployed)).toBe('http is not allowed; use https');
    expect(urlProblem('HTTP://hooks.example.com/', deployed)).toBe('http is not allowed; use https');
  });

  test('an upper-case https scheme and host are the same URL', () => {
    expect(urlProblem('HTTPS://HOOKS.EXAMPLE.COM/', deployed)).toBeUndefined();
  });

  test.each([
    ['file:///etc/passwd', 'file'],
    ['ftp://example.com/', 'ftp'],
    ['gopher://example.com:70/_x', 'gopher'],
    ['javascript:alert(1)', 'javascript'],
    ['data:text/plain,hi', 'data'],
    ['ws://example.com/', 'ws'],
  ])('the scheme of %s is refused, even for a developer', (url, scheme) => {
    expect(urlProblem(url, developer)).toBe(`${scheme} is not allowed; use https`);
  });

  test.each([
    ' https://example.com/',
    'https://example.com/ ',
    'https://exa\nmple.com/',
    'https://example.com/\t',
    'https://example.com/a b',
    'https://example.com/\u0000',
  ])('whitespace or a control character anywhere is refused (%j), rather than silently dropped by the parser', (url) =>
    expect(urlProblem(url, deployed)).toBe(`${quoted(url)} contains spaces or control characters, which a webhook URL must not`),
  );

  test.each(['', 'example.com', '/webhooks', 'https://', 'https://foo.123/', 'https://[::1/', 'https://exa%mple.com'])(
    'something that is not an absolute URL is refused (%j)',
    (url) =>
      expect(urlProblem(url, developer)).toBe(
        `${JSON.stringify(url)} is not an absolute URL; write one such as https://example.com/webhooks`,
      ),
  );

  test('a fragment is refused, even an empty one', () => {
    expect(urlProblem('https://example.com/hooks#section', deployed)).toBe('a fragment ("#section") is not allowed in a webhook URL');
    expect(urlProblem('https://example.com/hooks#', deployed)).toBe('a fragment ("#") is not allowed in a webhook URL');
  });

  test('a URL of 2,048 characters is allowed; one more is refused', () => {
    const at = (length: number) => `https://example.com/${'a'.repeat(length - 'https://example.com/'.length)}`;
    expect(urlProblem(at(2048), deployed)).toBeUndefined();
    expect(urlProblem(at(2049), deployed)).toBe('the URL is 2049 characters long; the limit is 2048');
  });

  test('a developer may use http, local names and private addresses', () => {
    for (const url of ['http://127.0.0.1:3000/hooks', 'http://localhost:8080/', 'https://10.0.0.5/', 'http://[::1]/', 'http://receiver/']) {
      expect(urlProblem(url, developer)).toBeUndefined();
    }
  });
});

describe('the policy', () => {
  test('private targets are refused unless the setting is exactly "true"', () => {
    expect(targetPolicy({})).toEqual({ allowPrivate: false, local: true });
    expect(targetPolicy({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'TRUE' })).toEqual({ allowPrivate: false, local: true });
    expect(targetPolicy({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' })).toEqual({ allowPrivate: false, local: true });
    expect(targetPolicy({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' })).toEqual({ allowPrivate: true, local: true });
  });

  test('on AWS Lambda the setting is ignored: a deployed stack never delivers to private targets', () => {
    const env = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' };
    expect(targetPolicy(env)).toEqual({ allowPrivate: false, local: false });
  });

  test('a local stack that refuses a private target names the setting that would allow it; a deployed one does not', async () => {
    const hint = 'start the local stack with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true';
    const local = targetPolicy({});
    expect(urlProblem('http://127.0.0.1:4000/', local)).toContain(hint);
    expect(urlProblem('https://127.0.0.1:4000/', local)).toMatch(new RegExp(`^127.0.0.1 is a loopback address .*${hint}`));
    expect(urlProblem('https://localhost/', local)).toContain(hint);
    expect(await resolutionProblem('hooks.example.com', local, fakeDns(['10.0.0.1']))).toContain(hint);
    expect(urlProblem('ftp://hooks.example.com/', local)).toBe('ftp is not allowed; use https');
    const lambda = targetPolicy({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' });
    expect(urlProblem('http://127.0.0.1:4000/', lambda)).toBe('http is not allowed; use https');
    expect(urlProblem('https://127.0.0.1:4000/', lambda)).not.toContain('WEBHOOKS_ALLOW_PRIVATE_TARGETS');
  });
});

describe('names are judged by every address they resolve to', () => {
  test('a name that resolves only to public addresses is allowed', async () => {
    expect(
      await resolutionProblem('hooks.example.com', deployed, fakeDns(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])),
    ).toBeUndefined();
  });

  test('a name with one refused address among public ones is refused', async () => {
    const problem = await resolutionProblem('mixed.example.com', deployed, fakeDns(['93.184.215.14', '10.1.2.3']));
    expect(problem).toBe(`mixed.example.com resolves to a private address (10.0.0.0/8); ${PUBLIC_ONLY}`);
  });

  test('the refused address a name resolves to is not repeated (the resolver may know private names)', async () => {
    const problem = await resolutionProblem('db.example.com', deployed, fakeDns(['::ffff:10.20.30.40']));
    expect(problem).toBe(`db.example.com resolves to an IPv4-mapped form of a private address (10.0.0.0/8); ${PUBLIC_ONLY}`);
    expect(problem).not.toContain('10.20.30.40');
  });

  test('a name that does not resolve (yet) is accepted at save time: each delivery resolves it again', async () => {
    expect(await resolutionProblem('nowhere.example.com', deployed, failingDns('ENOTFOUND'))).toBeUndefined();
    expect(await resolutionProblem('slow.example.com', deployed, failingDns('EAI_AGAIN'))).toBeUndefined();
    expect(await resolutionProblem('empty.example.com', developer, fakeDns([]))).toBeUndefined();
  });

  test('a literal address is judged without asking DNS', async () => {
    const dns = fakeDns(['93.184.215.14']);
    expect(await resolutionProblem('[::1]', deployed, dns)).toMatch(/^::1 is a loopback address/);
    expect(await resolutionProblem('8.8.8.8', deployed, dns)).toBeUndefined();
    expect(dns.calls).toBe(0);
  });

  test('a developer may use names that resolve to private addresses', async () => {
    expect(await resolutionProblem('receiver', developer, fakeDns(['172.17.0.2']))).toBeUndefined();
  });
});

describe('the lookup a delivery connects with', () => {
  test('a name whose answer changes between the save-time check and the delivery is refused at delivery', async () => {
    const dns = fakeDns(['93.184.215.14'], ['127.0.0.1']);
    expect(await resolutionProblem('rebind.example.com', deployed, dns)).toBeUndefined();
    await expect(resolveWith(guardedLookup(deployed, dns), 'rebind.example.com', { all: true })).rejects.toMatchObject({
      code: 'EWEBHOOKADDRESS',
      message: `rebind.example.com resolves to a loopback address (127.0.0.0/8); ${PUBLIC_ONLY}`,
    });
  });

  test('a single-address lookup is refused when any address of the name is refused', async () => {
    const lookup = guardedLookup(deployed, fakeDns(['93.184.215.14', '169.254.169.254']));
    await expect(resolveWith(lookup, 'metadata.example.com')).rejects.toMatchObject({ code: 'EWEBHOOKADDRESS' });
  });

  test('every checked address is handed to the socket when Node asks for all of them', async () => {
    const lookup = guardedLookup(deployed, fakeDns(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']));
    expect(await resolveWith(lookup, 'hooks.example.com', { all: true })).toEqual({
      address: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
      family: undefined,
    });
  });

  test('one address of the family asked for is handed when Node asks for one', async () => {
    const lookup = guardedLookup(deployed, fakeDns(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']));
    expect(await resolveWith(lookup, 'hooks.example.com')).toEqual({ address: '93.184.215.14', family: 4 });
    expect(await resolveWith(lookup, 'hooks.example.com', { family: 6 })).toEqual({
      address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      family: 6,
    });
  });

  test('a name with no address of the family asked for fails as not found', async () => {
    const lookup = guardedLookup(deployed, fakeDns(['93.184.215.14']));
    await expect(resolveWith(lookup, 'hooks.example.com', { family: 6 })).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  test("DNS's own failure is passed on as it is", async () => {
    await expect(resolveWith(guardedLookup(deployed, failingDns('ENOTFOUND')), 'nowhere.example.com')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });
});
