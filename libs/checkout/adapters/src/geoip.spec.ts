import { join } from 'node:path';
import { geoipFromConfig, loadIpCountryTable, withGeoip } from './geoip';

const fixture = join(__dirname, '__fixtures__', 'geoip');

describe('GeoIP country table', () => {
  const table = loadIpCountryTable(fixture);

  it('finds the country of an IPv4 address inside a range, at both ends, from an unsorted file', () => {
    expect(table.countryOf('198.51.100.7')).toBe('DE');
    expect(table.countryOf('192.0.2.0')).toBe('SE');
    expect(table.countryOf('203.0.113.127')).toBe('US');
    expect(table.ranges).toBe(5);
  });

  it('answers null between ranges, before the first and after the last', () => {
    expect(table.countryOf('203.0.113.128')).toBeNull();
    expect(table.countryOf('10.0.0.1')).toBeNull();
    expect(table.countryOf('255.255.255.255')).toBeNull();
  });

  it('finds IPv6 addresses by their prefix, compressed or not, and IPv4-mapped ones by the IPv4 table', () => {
    expect(table.countryOf('2001:db8::1')).toBe('DK');
    expect(table.countryOf('2001:0db8:0000:0042:0000:8a2e:0370:7334')).toBe('DK');
    expect(table.countryOf('2001:db9:1:2::1.2.3.4')).toBe('PL');
    expect(table.countryOf('2001:db9:2::1')).toBeNull();
    expect(table.countryOf('::ffff:198.51.100.9')).toBe('DE');
    expect(table.countryOf('::1')).toBeNull();
  });

  it('answers null for what is not an address', () => {
    for (const junk of ['', 'unknown', '1.2.3', '999.1.1.1', 'example.com', '2001:db8::g']) expect(table.countryOf(junk)).toBeNull();
  });

  it('fails at start-up naming a directory without the files', () => {
    expect(() => loadIpCountryTable(__dirname)).toThrow(/GEOIP_DB: no \*-ipv4-num\.csv in/);
  });

  it('is off when configured off', () => {
    expect(geoipFromConfig({ GEOIP_DB: 'off' })).toBeUndefined();
    expect(withGeoip({ GEOIP_DB: 'off' })).toEqual({});
  });

  it('ships a real table: well-known public resolvers resolve to their countries', () => {
    const builtin = geoipFromConfig({ GEOIP_DB: 'builtin' })!;
    expect(builtin.ranges).toBeGreaterThan(100_000);
    expect(builtin.countryOf('8.8.8.8')).toBe('US');
    expect(builtin.countryOf('2001:4860:4860::8888')).toBe('US');
    expect(builtin.countryOf('127.0.0.1')).toBeNull();
  });
});
