import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { Client } from 'pg';
import { cleanUpNamed, describeWithEngines, uniqueName } from '@commerce/shared-testing';
import type { EventEnvelope } from '@commerce/shared-events';
import { createEventBus } from './create-event-bus';
import { envelope, eventually } from './event-bus.contract';

// What a suite names on the shared engines is deleted when it ends (decision 81): the shared broker had
// gathered 2,200 topics of tests, e2e runs and benches and took 107 s to start.
const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'silent' });
/** Names the first suite made and left: its end (describeWithEngines) deletes what they name; the second checks. */
const suiteNames: string[] = [];

const kafkaAdmin = async (brokers: string) => {
  const admin = new Kafka({ clientId: 'cleanup-check', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  return admin;
};

/** A namespace's topics (its dead-letter topics too) and consumer groups on the broker. */
async function kafkaNamed(brokers: string, name: string): Promise<{ topics: string[]; groups: string[] }> {
  const admin = await kafkaAdmin(brokers);
  try {
    return {
      topics: (await admin.listTopics()).filter((t) => t.includes(name)).sort(),
      groups: (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.includes(name)),
    };
  } finally {
    await admin.disconnect();
  }
}

/** Opens a bus in `namespace`, has one group handle one event, and closes it. */
async function useNamespace(brokers: string, namespace: string): Promise<void> {
  const bus = await createEventBus(brokers, { clientId: 'cleanup-test', logger, namespace });
  try {
    const handled: EventEnvelope[] = [];
    await bus.subscribe({ groupId: 'cleanup-consumer', topics: ['cleanup.thing.v1'], handle: async (e) => void handled.push(e) });
    const event = envelope('cleanup.thing.v1', 'k');
    await bus.publish([event]);
    await eventually(() => expect(handled.map((e) => e.id)).toEqual([event.id]), 30_000);
  } finally {
    await bus.close();
  }
}

describeWithEngines('clean-up of what a run named', ['kafka', 'postgres', 'meilisearch'], (engines) => {
  it("deletes a namespace's topics, dead-letter topics and consumer groups once its bus closed", async () => {
    const brokers = engines.url('kafka');
    const namespace = uniqueName('cleanup_ns');
    await useNamespace(brokers, namespace);
    const before = await kafkaNamed(brokers, namespace);
    expect(before.topics).toEqual([`${namespace}.cleanup.thing.v1`, `${namespace}.cleanup.thing.v1.dlq`]);
    expect(before.groups).toEqual([`${namespace}.cleanup-consumer`]);

    const report = await cleanUpNamed({ kafkaBrokers: brokers }, [namespace]);

    expect(report.failures).toEqual([]);
    expect(report.topics.sort()).toEqual(before.topics);
    expect(report.groups).toEqual(before.groups);
    await eventually(async () => expect(await kafkaNamed(brokers, namespace)).toEqual({ topics: [], groups: [] }), 30_000);
  }, 120_000);

  it('drops the Postgres schemas and deletes the Meilisearch indexes the names name, and nothing else', async () => {
    const [mine, other] = [uniqueName('cleanup_pg'), uniqueName('cleanup_keep')];
    const pg = new Client({ connectionString: engines.url('postgres') });
    await pg.connect();
    const meili = engines.url('meilisearch').replace(/\/+$/, '');
    const key = engines.key('meilisearch');
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) };
    const indexThere = async (uid: string) => (await fetch(`${meili}/indexes/${uid}`, { headers })).status === 200;
    try {
      for (const schema of [mine, `${mine}_catalog`, other])
        await pg.query(`create schema "${schema}"; create table "${schema}".t (id int)`);
      for (const uid of [`${mine}_products`, other])
        await fetch(`${meili}/indexes`, { method: 'POST', headers, body: JSON.stringify({ uid }) });
      await eventually(async () => expect([await indexThere(`${mine}_products`), await indexThere(other)]).toEqual([true, true]), 30_000);

      const report = await cleanUpNamed({ postgresUrl: engines.url('postgres'), meili: { url: meili, key } }, [mine]);

      expect(report.failures).toEqual([]);
      expect(report.schemas.sort()).toEqual([mine, `${mine}_catalog`]);
      const { rows } = await pg.query<{ nspname: string }>(`select nspname from pg_namespace where nspname in ($1, $2, $3)`, [
        mine,
        `${mine}_catalog`,
        other,
      ]);
      expect(rows.map((r) => r.nspname)).toEqual([other]);
      expect(report.indexes).toEqual([`${mine}_products`]);
      await eventually(async () => expect([await indexThere(`${mine}_products`), await indexThere(other)]).toEqual([false, true]), 30_000);
    } finally {
      await pg.end();
    }
    // `other` is this suite's too: the suite's own clean-up deletes it (checked below).
    suiteNames.push(other);
  }, 120_000);

  it('uses a namespace and leaves it to the suite to clean up', async () => {
    const namespace = uniqueName('cleanup_suite');
    await useNamespace(engines.url('kafka'), namespace);
    expect((await kafkaNamed(engines.url('kafka'), namespace)).topics).toHaveLength(2);
    suiteNames.push(namespace);
  }, 120_000);
});

describeWithEngines('clean-up when a suite ends', ['kafka', 'postgres', 'meilisearch'], (engines) => {
  it('has deleted what the names of the suite before named', async () => {
    expect(suiteNames).toHaveLength(2);
    const [other, namespace] = suiteNames as [string, string];
    await eventually(async () => expect(await kafkaNamed(engines.url('kafka'), namespace)).toEqual({ topics: [], groups: [] }), 30_000);
    const pg = new Client({ connectionString: engines.url('postgres') });
    await pg.connect();
    try {
      expect((await pg.query(`select 1 from pg_namespace where nspname = $1`, [other])).rows).toEqual([]);
    } finally {
      await pg.end();
    }
    const key = engines.key('meilisearch');
    const meili = engines.url('meilisearch').replace(/\/+$/, '');
    await eventually(
      async () =>
        expect((await fetch(`${meili}/indexes/${other}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} })).status).toBe(404),
      30_000,
    );
  }, 60_000);
});
