import { z } from 'zod';
import { loadConfig, retentionEnv, retentionSettings } from './config';

const schema = z.object(retentionEnv());

describe('retention settings from the environment', () => {
  it('when nothing is set, keeps sent outbox rows 7 days and dedupe records 14, pruning hourly 1000 rows a statement', () => {
    expect(retentionSettings(loadConfig(schema, {}))).toEqual({
      outboxRetentionMs: 7 * 86_400_000,
      processedEventsRetentionMs: 14 * 86_400_000,
      intervalMs: 3_600_000,
      batchSize: 1000,
    });
  });

  it('reads fractional days and the interval in seconds', () => {
    const config = loadConfig(schema, { OUTBOX_RETENTION_DAYS: '0.5', RETENTION_INTERVAL_SECONDS: '60', RETENTION_BATCH_SIZE: '500' });
    expect(retentionSettings(config)).toMatchObject({ outboxRetentionMs: 43_200_000, intervalMs: 60_000, batchSize: 500 });
  });

  it('refuses dedupe records kept less than a day, naming the variable', () => {
    expect(() => loadConfig(schema, { PROCESSED_EVENTS_RETENTION_DAYS: '0.5' })).toThrow(
      /^config: PROCESSED_EVENTS_RETENTION_DAYS .*\(got "0.5"\)$/,
    );
  });

  it('refuses a malformed interval or batch size', () => {
    expect(() => loadConfig(schema, { RETENTION_INTERVAL_SECONDS: 'hourly' })).toThrow(/RETENTION_INTERVAL_SECONDS/);
    expect(() => loadConfig(schema, { RETENTION_BATCH_SIZE: '0' })).toThrow(/RETENTION_BATCH_SIZE/);
  });
});
