import type { Migration } from '@commerce/shared-db';

/**
 * The items a live hold keeps, on the item's row (`held`: the quantities of its holds in state `held`), so that a
 * hold is one guarded update of that row (decision 151): the stock row is locked for one statement, not for a
 * transaction of reads. Filled from the holds there are; never below 0.
 */
export const stockHoldsHeldMigration: Migration = {
  name: 'catalog_stock_holds_003_held',
  async up(knex, schema) {
    await knex.schema.withSchema(schema).alterTable('items', (t) => {
      t.integer('held').notNullable().defaultTo(0);
    });
    await knex.raw(
      `update ??.items i set held = h.quantity from (select item_id, sum(quantity)::int as quantity from ??.stock_holds where state = 'held' group by item_id) h where i.id = h.item_id`,
      [schema, schema],
    );
    await knex.raw(`alter table ??.items add constraint items_held_not_negative check (held >= 0)`, [schema]);
  },
};

/** Stock held by started payments (the checkout saga), per attempt and item. */
/** A hold whose stock was gone when its payment came (decision 55): `lost`, with the quantity that was missing. */
export const stockHoldsLostMigration: Migration = {
  name: 'catalog_stock_holds_002_lost',
  async up(knex, schema) {
    await knex.schema.withSchema(schema).alterTable('stock_holds', (t) => {
      t.integer('unavailable').nullable();
    });
  },
};

export const stockHoldsMigration: Migration = {
  name: 'catalog_stock_holds_001',
  async up(knex, schema) {
    await knex.schema.withSchema(schema).createTable('stock_holds', (t) => {
      t.text('attempt_id').notNullable();
      t.text('item_id').notNullable();
      t.text('selection_id').notNullable();
      t.integer('quantity').notNullable();
      // held → committed (the order took the stock), released (given up or replaced), lost, or expired (reclaimed once
      // past its time; until then it no longer counts).
      t.text('state').notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['attempt_id', 'item_id']);
    });
    await knex.raw(`create index stock_holds_item_held on ??.stock_holds (item_id, expires_at) where state = 'held'`, [schema]);
    await knex.raw(`create index stock_holds_selection_held on ??.stock_holds (selection_id) where state = 'held'`, [schema]);
    // Stock never below 0, whatever writes it.
    await knex.raw(`alter table ??.items add constraint items_stock_not_negative check (stock >= 0) not valid`, [schema]);
  },
};
