import { ProductUpsertReceived, upsertKey } from '@commerce/backoffice-contracts';
import { migrate, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { backofficeMigrations } from './backoffice.migrations';
import { createReceivedUpsertsStore } from './received-upserts.store';

const event = (id: string) => ProductUpsertReceived.create(upsertKey('product', id), { entity: 'product', product: { id } }, 'req-1');

/** The UpsertStore's behaviour, run on PGlite (unit) and on Postgres (int) so the two cannot drift. */
export function receivedUpsertsStoreContract(engine: () => DbEngine): void {
  async function freshDb() {
    const db = engine().forSchema(uniqueName('bo_store'));
    await migrate(db, backofficeMigrations);
    return db;
  }

  it('writes the entities in order and their outbox events together', async () => {
    const db = await freshDb();
    const store = createReceivedUpsertsStore(db);

    await store.saveBatch(
      'product',
      [
        { externalId: 'a', data: { id: 'a' } },
        { externalId: 'b', data: { id: 'b' } },
      ],
      [event('a'), event('b')],
      'req-1',
    );

    const rows = await db.table('received_upserts').select('entity', 'external_id', 'payload', 'request_id').orderBy('seq');
    expect(rows).toEqual([
      { entity: 'product', external_id: 'a', payload: { id: 'a' }, request_id: 'req-1' },
      { entity: 'product', external_id: 'b', payload: { id: 'b' }, request_id: 'req-1' },
    ]);
    expect(await db.table('outbox').orderBy('seq').pluck('key')).toEqual(['product:a', 'product:b']);
  });

  it('writes nothing at all when the outbox insert fails', async () => {
    const db = await freshDb();
    const store = createReceivedUpsertsStore(db);
    const same = event('a');

    // Two events with one id break the outbox's unique id: the entity rows must roll back with them.
    await expect(store.saveBatch('product', [{ externalId: 'a', data: { id: 'a' } }], [same, same])).rejects.toThrow();

    expect(await db.table('received_upserts').count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await db.table('outbox').count({ n: '*' })).toEqual([{ n: 0 }]);
  });
}
