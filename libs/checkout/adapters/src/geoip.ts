import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';

/**
 * The visitor's country from their address, offline (decision 39): the country ranges of an
 * ip-location-db package (`@ip-location-db/geo-whois-asn-country` by default: CC0, from the RIRs'
 * WHOIS and ASN data, attribution to nro.net), loaded once into sorted typed arrays and searched by
 * bisection. IPv4 by the whole address; IPv6 by its first 48 bits (country ranges are allocated on far
 * coarser boundaries).
 */
export interface IpCountryLookup {
  /** The ISO country code of an IPv4 or IPv6 address (IPv4-mapped IPv6 included); null when unknown or private. */
  countryOf(address: string): string | null;
  /** Ranges loaded, for the start-up log. */
  readonly ranges: number;
}

export const geoipEnv = () => ({
  /**
   * Where the visitor's country comes from when no trusted header names it: `builtin` (the shipped
   * ip-location-db country ranges), `off`, or the directory of another ip-location-db country package
   * (its `*-ipv4-num.csv` and `*-ipv6.csv`, e.g. a fresher `@ip-location-db/dbip-country`).
   */
  GEOIP_DB: z
    .string()
    .min(1)
    .default('builtin')
    .describe(
      "Where a new visitor's country comes from when no trusted header names it: `builtin` (the shipped `@ip-location-db/geo-whois-asn-country` ranges, CC0; data attribution: nro.net), `off`, or the directory of another ip-location-db country package (decision 39). Loaded at start-up; behind an ingress set `LOGIN_TRUST_PROXY=true` so the address is the client's.",
    ),
});

const BUILTIN_PACKAGE = '@ip-location-db/geo-whois-asn-country/package.json';

/** The lookup the config asks for, or undefined for `off`. Loading costs a few hundred ms: do it at start-up. */
export function geoipFromConfig(config: { GEOIP_DB: string }): IpCountryLookup | undefined {
  if (config.GEOIP_DB === 'off') return undefined;
  const dir = config.GEOIP_DB === 'builtin' ? dirname(require.resolve(BUILTIN_PACKAGE)) : config.GEOIP_DB;
  return loadIpCountryTable(dir);
}

/** The checkout deps' `geoip`, as the config asks (none for `off`). */
export const withGeoip = (config: { GEOIP_DB: string }): { geoip?: IpCountryLookup } => {
  const geoip = geoipFromConfig(config);
  return geoip ? { geoip } : {};
};

const loaded = new Map<string, IpCountryLookup>();

/** The country ranges of an ip-location-db country package directory; loaded once per process. */
export function loadIpCountryTable(dir: string): IpCountryLookup {
  const known = loaded.get(dir);
  if (known) return known;
  const files = readdirSync(dir);
  const pick = (suffix: string): string => {
    const file = files.find((f) => f.endsWith(suffix));
    if (!file) throw new Error(`GEOIP_DB: no *${suffix} in ${dir}`);
    return join(dir, file);
  };
  const v4 = parseV4(readFileSync(pick('-ipv4-num.csv')));
  const v6 = parseV6(readFileSync(pick('-ipv6.csv')));
  const lookup: IpCountryLookup = {
    ranges: v4.starts.length + v6.starts.length,
    countryOf(address) {
      const ip = address.trim();
      if (isIPv4(ip)) return v4.find(ipv4Number(ip));
      if (!isIPv6(ip)) return null;
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
      if (mapped) return v4.find(ipv4Number(mapped[1]!));
      return v6.find(ipv6PrefixOf(ip));
    },
  };
  loaded.set(dir, lookup);
  return lookup;
}

/** Sorted, non-overlapping ranges with a country each; `find` bisects for the last start ≤ the key. */
class RangeTable {
  constructor(
    readonly starts: Float64Array,
    private readonly ends: Float64Array,
    private readonly countries: Uint16Array,
    private readonly codes: string[],
  ) {}

  find(key: number): string | null {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid]! <= key) lo = mid + 1;
      else hi = mid - 1;
    }
    // hi: the last range starting at or before the key.
    if (hi < 0 || key > this.ends[hi]!) return null;
    return this.codes[this.countries[hi]!] ?? null;
  }
}

/** Country codes interned to small integers, read from two upper- or lower-case letters without a string per line. */
function interner(): { codes: string[]; id(bytes: Uint8Array, from: number, to: number): number } {
  const codes: string[] = [];
  const ids = new Int16Array(65536).fill(-1);
  return {
    codes,
    id(bytes, from, to) {
      while (to > from && bytes[to - 1]! <= 32) to--; // a CR of a CRLF file
      if (to - from !== 2) return 0xffff;
      const key = ((bytes[from]! & ~32) << 8) | (bytes[from + 1]! & ~32);
      let id = ids[key]!;
      if (id < 0) {
        id = codes.length;
        codes.push(String.fromCharCode(key >> 8, key & 255));
        ids[key] = id;
      }
      return id;
    },
  };
}

/** `start,end,CC` lines with decimal IPv4 numbers, scanned byte by byte (550,000 lines: no string per field). */
function parseV4(bytes: Buffer): RangeTable {
  return parseRanges(bytes, (from, to) => {
    let n = 0;
    for (let i = from; i < to; i++) n = n * 10 + (bytes[i]! - 48);
    return n;
  });
}

/** `start,end,CC` lines with textual IPv6 addresses, kept by their first 48 bits (a number, exact below 2^53). */
function parseV6(bytes: Buffer): RangeTable {
  return parseRanges(bytes, (from, to) => ipv6Prefix(bytes, from, to));
}

/** The lines of a range file: two addresses (parsed by `address`) and a two-letter country, comma-separated. */
function parseRanges(bytes: Buffer, address: (from: number, to: number) => number): RangeTable {
  let lines = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) lines++;
  lines++;
  const starts = new Float64Array(lines);
  const ends = new Float64Array(lines);
  const countries = new Uint16Array(lines);
  const names = interner();
  let n = 0;
  let at = 0;
  while (at < bytes.length) {
    let eol = bytes.indexOf(10, at);
    if (eol < 0) eol = bytes.length;
    const comma1 = bytes.indexOf(44, at);
    const comma2 = comma1 < 0 ? -1 : bytes.indexOf(44, comma1 + 1);
    if (comma1 > at && comma2 > comma1 && comma2 < eol) {
      starts[n] = address(at, comma1);
      ends[n] = address(comma1 + 1, comma2);
      countries[n] = names.id(bytes, comma2 + 1, eol);
      if (Number.isFinite(starts[n]!) && Number.isFinite(ends[n]!)) n++;
    }
    at = eol + 1;
  }
  return sorted(starts.subarray(0, n), ends.subarray(0, n), countries.subarray(0, n), names.codes);
}

/** The package's files are sorted by start already; sort anyway when a supplied file is not. */
function sorted(starts: Float64Array, ends: Float64Array, countries: Uint16Array, codes: string[]): RangeTable {
  let inOrder = true;
  for (let i = 1; i < starts.length && inOrder; i++) inOrder = starts[i - 1]! <= starts[i]!;
  if (!inOrder) {
    const order = Array.from(starts.keys()).sort((a, b) => (starts[a]! < starts[b]! ? -1 : starts[a]! > starts[b]! ? 1 : 0));
    const [s, e, c] = [starts.slice(), ends.slice(), countries.slice()];
    order.forEach((from, to) => {
      starts[to] = s[from]!;
      ends[to] = e[from]!;
      countries[to] = c[from]!;
    });
  }
  return new RangeTable(starts, ends, countries, codes);
}

function ipv4Number(ip: string): number {
  const [a, b, c, d] = ip.split('.').map(Number) as [number, number, number, number];
  return ((a * 256 + b) * 256 + c) * 256 + d;
}

const groups = new Int32Array(8);

/**
 * The first 48 bits of the IPv6 address in `bytes[from, to)` as a number (`::` expanded; a dotted IPv4
 * tail counts as two groups), NaN when malformed. 48 bits: exact in a double, and finer than any
 * registry's country allocation. Scanned without strings: the table has 430,000 of them.
 */
function ipv6Prefix(bytes: Uint8Array, from: number, to: number): number {
  let count = 0;
  let gap = -1;
  let i = from;
  if (bytes[i] === 58 && bytes[i + 1] === 58) {
    gap = 0;
    i += 2;
  }
  while (i < to && count < 8) {
    let value = 0;
    let digits = 0;
    for (; i < to && digits < 5; i++, digits++) {
      const c = bytes[i]! | 32; // lower-case letters; digits unchanged
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
      if (d < 0) break;
      value = value * 16 + d;
    }
    if (i < to && bytes[i] === 46) {
      // An IPv4 tail: the last two groups, whose values do not reach the prefix.
      count += 2;
      break;
    }
    if (digits === 0 || digits > 4) return NaN;
    groups[count++] = value;
    if (i >= to) break;
    if (bytes[i] !== 58) return NaN;
    i++;
    if (bytes[i] === 58) {
      if (gap >= 0) return NaN;
      gap = count;
      i++;
    }
  }
  if (gap >= 0) {
    const tail = count - gap;
    for (let k = 0; k < tail; k++) groups[7 - k] = groups[count - 1 - k]!;
    for (let k = gap; k < 8 - tail; k++) groups[k] = 0;
  } else if (count !== 8) return NaN;
  return groups[0]! * 4294967296 + groups[1]! * 65536 + groups[2]!;
}

/** The same, for an address as a string. */
const ipv6PrefixOf = (ip: string): number => {
  const bytes = Buffer.from(ip, 'latin1');
  return ipv6Prefix(bytes, 0, bytes.length);
};
