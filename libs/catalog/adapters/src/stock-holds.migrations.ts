import type { Migration } from '@commerce/shared-db';

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
      // held → committed (the order took the stock) or released (given up); an expired hold stays held but no longer counts.
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
