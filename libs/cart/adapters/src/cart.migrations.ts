import type { Migration } from '@commerce/shared-db';

/** The cart's migrations; `digitsOf` (the store's minor digits of a currency) converts the decimal prices of `006`. */
export const cartMigrations = (digitsOf: (currency: string) => number): Migration[] => [
  {
    name: '001_selections',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).createTable('selections', (t) => {
        t.uuid('id').primary();
        t.string('status', 16).notNullable().defaultTo('open');
        t.string('currency', 3).notNullable();
        t.string('country', 2).nullable();
        t.string('state', 8).nullable();
        t.string('language', 16).nullable();
        t.string('payment_method', 64).notNullable().defaultTo('');
        t.string('customer_id', 64).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      });
      await knex.schema.withSchema(schema).createTable('selection_lines', (t) => {
        t.bigIncrements('seq').primary();
        t.uuid('selection_id').notNullable().references('id').inTable(`${schema}.selections`).onDelete('CASCADE');
        t.string('line', 32).notNullable().unique();
        t.string('item', 64).notNullable();
        t.string('product', 32).notNullable();
        t.string('size', 32).notNullable();
        t.string('sku', 128).notNullable().defaultTo('');
        t.string('ean', 64).notNullable().defaultTo('');
        t.text('product_name').notNullable().defaultTo('');
        t.text('brand_name').notNullable().defaultTo('');
        t.integer('quantity').notNullable();
        t.decimal('price_each', 14, 4).notNullable();
        t.unique(['selection_id', 'item']);
      });
    },
  },
  {
    // Issue 7: shipping method, vouchers and payment fields on the selection; sale price and quantity rules on the line.
    name: '002_selection_checkout_fields',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('selections', (t) => {
        t.string('shipping_method', 64).notNullable().defaultTo('');
        t.jsonb('vouchers').notNullable().defaultTo('[]');
        t.jsonb('payment_fields').notNullable().defaultTo('{}');
      });
      await knex.schema.withSchema(schema).alterTable('selection_lines', (t) => {
        t.decimal('price_each_before_discount', 14, 4).nullable();
        t.integer('quantity_minimum').notNullable().defaultTo(1);
        t.integer('quantity_multiple_of').notNullable().defaultTo(1);
      });
    },
  },
  {
    // Issue 9: the saved selection of a customer. One open selection per customer, so two devices logging
    // in at once cannot each make one.
    name: '003_saved_selection',
    async up(knex, schema) {
      await knex.raw(
        `create unique index selections_open_customer on ??.selections (customer_id) where status = 'open' and customer_id is not null`,
        [schema],
      );
    },
  },
  {
    // Issue 7's speed: a change is one conditional statement on the version it read (decision 51).
    name: '004_selection_version',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('selections', (t) => {
        t.integer('version').notNullable().defaultTo(0);
      });
    },
  },
  {
    // A line's size is the size's name (decision 112), as long as the catalog's name, no longer an id.
    name: '005_line_size_name',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('selection_lines', (t) => {
        t.text('size').notNullable().alter();
      });
    },
  },
  {
    // A line's prices in integer minor units of its selection's currency (docs/pricing.md): the cart stores and answers
    // them so, the checkout's pricing sums them. Expand only: the decimal columns stay, filled by this release too,
    // so a replica of the release before (during a rolling update) still reads and writes its prices; a row such a
    // replica writes has no minor units, and is read from its decimal. A later release may drop the decimals.
    name: '006_line_price_minor',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('selection_lines', (t) => {
        t.bigInteger('price_each_minor').nullable();
        t.bigInteger('price_each_before_discount_minor').nullable();
      });
      const currencies = (await knex.withSchema(schema).table('selections').distinct('currency')) as Array<{ currency: string }>;
      for (const { currency } of currencies) {
        const scale = 10 ** digitsOf(currency);
        // numeric arithmetic in the database: exact, rounded half away from zero as Math.round rounds a price.
        await knex.raw(
          `update ??.selection_lines l set price_each_minor = round(l.price_each * ?::numeric),
             price_each_before_discount_minor = round(coalesce(l.price_each_before_discount, l.price_each) * ?::numeric)
           from ??.selections s where s.id = l.selection_id and s.currency = ? and l.price_each_minor is null`,
          [schema, scale, scale, schema, currency],
        );
      }
    },
  },
  {
    // The ERP's ids of a line's item, kept from the add (decision 113's ids without a catalog call at payment).
    // Nullable: a line added before this, or by a replica of the release before, has none, and the checkout asks
    // the catalog for its ids at payment as it did.
    name: '007_line_external_ids',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('selection_lines', (t) => {
        t.text('external_product').nullable();
        t.text('external_variation').nullable();
        t.text('external_size').nullable();
        t.text('external_brand').nullable();
      });
    },
  },
  {
    // A line's selection by construction, not by a foreign key (decision 198): every statement that writes lines
    // takes their selection's id from the selection row it wrote in the same statement, or under that row's lock,
    // and a selection is never deleted. The key's check ran a query and locked the selection's row (a WAL record)
    // for every line inserted.
    name: '008_lines_without_selection_foreign_key',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('selection_lines', (t) => {
        t.dropForeign(['selection_id']);
      });
    },
    async down(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('selection_lines', (t) => {
        t.foreign('selection_id').references('id').inTable(`${schema}.selections`).onDelete('CASCADE');
      });
    },
  },
  {
    // Room on each page for the rows' next versions, so that a change (a selection's version raised, a line's
    // quantity) is a HOT update, no index entry written (decision 202). Pages written from now on.
    name: '009_selections_fillfactor',
    async up(knex, schema) {
      await knex.raw('alter table ??.selections set (fillfactor = 85)', [schema]);
      await knex.raw('alter table ??.selection_lines set (fillfactor = 85)', [schema]);
    },
    async down(knex, schema) {
      await knex.raw('alter table ??.selections reset (fillfactor)', [schema]);
      await knex.raw('alter table ??.selection_lines reset (fillfactor)', [schema]);
    },
  },
];
