import { execFileSync } from 'node:child_process';

// patches/kafkajs+2.2.4.patch (applied by `postinstall`). kafkajs 2.2.4 scheduled its pending-request
// check with a delay of `-1 - Date.now()` whenever nothing was throttled: Node 24 prints a
// TimeoutNegativeWarning at every start, and the check re-armed itself every millisecond for as
// long as a connection lived. Run in a child process: the warning is the real process's, not jest's.
const script = String.raw`
const RequestQueue = require('kafkajs/src/network/requestQueue');
const warnings = [];
process.on('warning', (w) => warnings.push(w.name));
const realSetTimeout = setTimeout;
const delays = [];
global.setTimeout = (fn, ms, ...args) => { delays.push(ms); return realSetTimeout(fn, ms, ...args); };
const quiet = () => undefined;
const queue = new RequestQueue({
  maxInFlightRequests: 1, requestTimeout: 1000, enforceRequestTimeout: false, clientId: 'test', broker: 'b:9092',
  logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
});
let answered = 0;
for (let correlationId = 1; correlationId <= 3; correlationId++) {
  const entry = { apiKey: 3, apiName: 'Metadata', apiVersion: 6, correlationId, resolve: () => answered++, reject: quiet };
  queue.push({ entry, expectResponse: true, sendRequest: quiet });
  queue.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });
}
realSetTimeout(() => {
  const idleTimer = queue.throttleCheckTimeoutId !== null;
  queue.destroy();
  process.stdout.write(JSON.stringify({ answered, warnings, delays, idleTimer }));
}, 50);
`;

describe('kafkajs as patched', () => {
  it('answers requests without a negative timeout, a TimeoutNegativeWarning or a timer left polling an idle queue', () => {
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    const result = JSON.parse(out) as { answered: number; warnings: string[]; delays: number[]; idleTimer: boolean };
    expect(result.answered).toBe(3);
    expect(result.delays.filter((ms) => !(ms >= 1))).toEqual([]);
    expect(result.warnings).not.toContain('TimeoutNegativeWarning');
    expect(result.idleTimer).toBe(false);
  });
});

describe('kafkajs as patched: a consumer restarted after a crash rejoins as the member it was (decision 140)', () => {
  // The consumer keeps the member id of a group it could not leave (the broker away) and starts its next
  // ConsumerGroup with it; the fault suite proves the effect (the last SOAP change searchable within 10 s of
  // Kafka's return). Here: the patch is there.
  it('starts a consumer group with the member id it is given, and the consumer passes the one it kept', async () => {
    const { readFileSync } = await import('node:fs');
    const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as new (options: Record<string, unknown>) => {
      memberId: string | null;
    };
    const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    const logger = { ...quiet, namespace: () => logger };
    const options = {
      retry: {},
      cluster: {},
      groupId: 'g',
      topics: [],
      topicConfigurations: {},
      logger,
      instrumentationEmitter: {},
      assigners: [],
    };
    expect(new ConsumerGroup({ ...options, memberId: 'catalog-1' }).memberId).toBe('catalog-1');
    expect(new ConsumerGroup(options).memberId).toBeNull();
    const consumer = readFileSync(require.resolve('kafkajs/src/consumer/index.js'), 'utf8');
    expect(consumer).toContain('memberId: rejoinAs,');
    expect(consumer).toContain('if (crashed) rejoinAs = crashed.memberId');
  });
});
