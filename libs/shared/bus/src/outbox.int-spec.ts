import pino from 'pino';
import { createDbEngine } from '@commerce/shared-db';
import { describeWithEngines } from '@commerce/shared-testing';
import { createKafkaBus } from './kafka-bus';
import { outboxContract } from './outbox.contract';

describeWithEngines('outbox on Postgres and Kafka', ['postgres', 'kafka'], (engines) => {
  outboxContract({
    engine: 'postgres',
    openDb: () => createDbEngine(engines.url('postgres'), { poolMax: 4 }),
    openBus: () => createKafkaBus(engines.url('kafka').split(','), { clientId: 'outbox-test', logger: pino({ level: 'error' }) }),
    timeoutMs: 20_000,
  });
});
