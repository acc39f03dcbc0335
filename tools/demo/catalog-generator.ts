/**
 * A catalog a shop would recognise, as the ERP would send it through the SOAP API: markets, warehouses,
 * sizes (with size tables), pricelists and products. Deterministic for a seed, so the demo shop and the
 * benchmark catalog are the same on every machine.
 *
 *   generateCatalog({ products: 60 })      the demo catalog (infra/config/demo-catalog.json)
 *   generateCatalog({ products: 10_000 })  the benchmark catalog (tools/bench)
 *
 * The category tree is store configuration (the "administration system"), so it is produced here too and
 * written into the demo store by tools/demo/write-demo.ts.
 */

export interface CategoryNode {
  category: string;
  name: string;
  children?: CategoryNode[];
}

export interface GeneratedCatalog {
  markets: Array<{ id: string; store: string; type: string; description: string }>;
  warehouses: Array<{ id: string; description: string }>;
  sizes: Array<{
    id: string;
    description: string;
    sku?: string;
    sizetable: { id: string; description: string; stockdivisor: string; stockunit: string };
  }>;
  pricelists: Array<{
    id: string;
    store: string;
    type: string;
    currency: string;
    description: string;
    items: Array<{ id: string; price?: string; priceb?: string; variation?: { id: string; price: string; priceb?: string } }>;
  }>;
  products: Array<Record<string, unknown>>;
  categories: CategoryNode[];
  swatches: Record<string, string>;
}

/** A small deterministic PRNG (mulberry32): the same catalog for the same seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DEMO_MARKETS = [
  { id: '1', store: '1', type: 'b2c', description: 'Sweden', pricelist: '1', currency: 'SEK', rate: 1 },
  { id: '2', store: '1', type: 'b2c', description: 'Europe', pricelist: '2', currency: 'EUR', rate: 0.09 },
  { id: '3', store: '1', type: 'b2c', description: 'North America', pricelist: '3', currency: 'USD', rate: 0.1 },
] as const;

const COLOURS: Record<string, string> = {
  Black: '#1b1b1b',
  White: '#f7f7f2',
  Navy: '#1f2a44',
  Oat: '#d8c8a8',
  'Espresso Brown': '#4b3126',
  'Forest Green': '#2e4b36',
  Red: '#b3262d',
  'Sky Blue': '#8ab6d6',
  Grey: '#8a8a8a',
  Sand: '#c9b38f',
  Indigo: '#2f3a6b',
  Rose: '#d9a3a8',
};

interface Kind {
  words: string[];
  table: 'letters' | 'waist-length' | 'shoes' | 'one';
  base: number;
}

/** Three levels: department → group → kind. The leaves hold the products. */
const TREE: Array<{ id: string; name: string; groups: Array<{ id: string; name: string; kinds: Array<{ id: string; name: string } & Kind> }> }> = [
  {
    id: 'C-WOMEN',
    name: 'Women',
    groups: [
      {
        id: 'C-W-TOPS',
        name: 'Tops',
        kinds: [
          { id: 'C-W-SHIRTS', name: 'Shirts', words: ['Linen Shirt', 'Crème Blouse', 'Poplin Shirt'], table: 'letters', base: 699 },
          { id: 'C-W-KNIT', name: 'Knitwear', words: ['Café Sweater', 'Naïve Knit Cardigan', 'Merino Crewneck'], table: 'letters', base: 999 },
        ],
      },
      {
        id: 'C-W-DRESSES',
        name: 'Dresses',
        kinds: [
          { id: 'C-W-SUMMER', name: 'Summer Dresses', words: ['Платье летнее', 'Φόρεμα Καλοκαιρινό', 'Silk Slip Dress 連衣裙'], table: 'letters', base: 1199 },
        ],
      },
    ],
  },
  {
    id: 'C-MEN',
    name: 'Men',
    groups: [
      {
        id: 'C-M-BOTTOMS',
        name: 'Bottoms',
        kinds: [
          { id: 'C-M-JEANS', name: 'Jeans', words: ['Straight Jeans', 'Slim Selvedge Jeans', 'Jeans Größe'], table: 'waist-length', base: 1099 },
          { id: 'C-M-TROUSERS', name: 'Trousers', words: ['Chino Trousers', 'Wool Trousers', 'Pantalón Señor'], table: 'waist-length', base: 899 },
        ],
      },
      {
        id: 'C-M-OUTER',
        name: 'Outerwear',
        kinds: [
          { id: 'C-M-JACKETS', name: 'Jackets', words: ['Cafe Racer Jacket', 'Denim Jacket', 'Куртка зимняя'], table: 'letters', base: 2499 },
          { id: 'C-M-COATS', name: 'Coats', words: ['Classic Wool Coat', 'Παλτό Μάλλινο', 'معطف صوف'], table: 'letters', base: 2999 },
        ],
      },
    ],
  },
  {
    id: 'C-SHOES',
    name: 'Shoes',
    groups: [
      {
        id: 'C-S-EVERYDAY',
        name: 'Everyday',
        kinds: [
          { id: 'C-S-SNEAKERS', name: 'Sneakers', words: ['Canvas Sneaker', 'Leather Sneaker', 'スニーカー'], table: 'shoes', base: 1299 },
          { id: 'C-S-BOOTS', name: 'Boots', words: ['Chelsea Boot', 'Hiking Boot', 'Ботинки'], table: 'shoes', base: 1899 },
        ],
      },
    ],
  },
  {
    id: 'C-ACC',
    name: 'Accessories',
    groups: [
      {
        id: 'C-A-WINTER',
        name: 'Winter',
        kinds: [
          { id: 'C-A-SCARVES', name: 'Scarves', words: ['Red Wool Scarf', 'Cashmere Scarf', '羊绒围巾'], table: 'one', base: 499 },
          { id: 'C-A-HATS', name: 'Hats', words: ['Sun Hat', 'Beanie', 'Bérêt'], table: 'one', base: 349 },
        ],
      },
    ],
  },
];

const BRANDS = [
  ['B-NW', 'Nordwear'],
  ['B-FJ', 'Fjällmark'],
  ['B-AT', 'Atelier Sœur'],
  ['B-UR', 'Urban Loom'],
  ['B-KY', 'Kyoto Thread'],
] as const;
const COLLECTIONS = [
  ['C-AW26', 'Autumn/Winter 2026'],
  ['C-SS26', 'Spring/Summer 2026'],
  ['C-CORE', 'Essentials'],
] as const;

const SIZE_TABLES = {
  letters: { id: 'ST-LETTERS', description: 'Letter sizes', names: ['XS', 'S', 'M', 'L', 'XL'], stockunit: 'pcs' },
  'waist-length': {
    id: 'ST-WL',
    description: 'Waist x length',
    names: ['30x32', '30x34', '32x32', '32x34', '34x32', '34x34'],
    stockunit: 'pcs',
  },
  shoes: { id: 'ST-EU-SHOES', description: 'EU shoe sizes', names: ['38', '39', '40', '41', '42', '43', '44', '45'], stockunit: 'pair' },
  one: { id: 'ST-ONE', description: 'One size', names: ['One size'], stockunit: 'pcs' },
} as const;

const sizeId = (table: keyof typeof SIZE_TABLES, name: string) => `${SIZE_TABLES[table].id}-${name.replace(/\s+/g, '')}`;

export interface GenerateOptions {
  products: number;
  seed?: number;
  /** Extra brands and categories for big catalogs (the benchmark asks for 20 brands and 50 categories). */
  brands?: number;
  leafCategories?: number;
}

export function generateCatalog(options: GenerateOptions): GeneratedCatalog {
  const rnd = random(options.seed ?? 2026);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const brands: Array<readonly [string, string]> = [...BRANDS];
  for (let i = brands.length; i < (options.brands ?? BRANDS.length); i++) brands.push([`B-${i + 1}`, `Brand ${i + 1} Ådalen`]);

  const leaves = TREE.flatMap((d) => d.groups.flatMap((g) => g.kinds));
  const categories: CategoryNode[] = TREE.map((d) => ({
    category: d.id,
    name: d.name,
    children: d.groups.map((g) => ({ category: g.id, name: g.name, children: g.kinds.map((k) => ({ category: k.id, name: k.name })) })),
  }));
  // Big catalogs: more leaves under a fourth department, so filters have 50 categories to choose from.
  const extraLeaves = Math.max(0, (options.leafCategories ?? leaves.length) - leaves.length);
  if (extraLeaves > 0) {
    const outlet: CategoryNode = { category: 'C-OUTLET', name: 'Outlet', children: [] };
    for (let i = 0; i < extraLeaves; i++) {
      const id = `C-OUT-${i + 1}`;
      outlet.children!.push({ category: id, name: `Outlet Line ${i + 1}` });
      leaves.push({ ...pick(leaves), id, name: `Outlet Line ${i + 1}` });
    }
    categories.push(outlet);
  }

  const sizes = Object.entries(SIZE_TABLES).flatMap(([key, table]) =>
    table.names.map((name) => ({
      id: sizeId(key as keyof typeof SIZE_TABLES, name),
      description: name,
      sizetable: { id: table.id, description: table.description, stockdivisor: '1', stockunit: table.stockunit },
    })),
  );
  const colourNames = Object.keys(COLOURS);
  const pricelists = DEMO_MARKETS.map((m) => ({
    id: m.pricelist,
    store: '1',
    type: 'b2c',
    currency: m.currency,
    description: `${m.description} ${m.currency}`,
    items: [] as GeneratedCatalog['pricelists'][number]['items'],
  }));

  const products: Array<Record<string, unknown>> = [];
  for (let n = 0; n < options.products; n++) {
    const leaf = leaves[n % leaves.length]!;
    const word = leaf.words[Math.floor(n / leaves.length) % leaf.words.length]!;
    const round = Math.floor(n / (leaves.length * leaf.words.length));
    const prefix = ['', 'Heritage ', 'Organic ', 'Relaxed ', 'Classic '][round % 5];
    const name = `${prefix}${word}${round >= 5 ? ` Nº ${round + 1}` : ''}`;
    const id = `P-${1001 + n}`;
    const [brandId, brandName] = pick(brands);
    const [collectionId, collectionName] = pick(COLLECTIONS);
    const variantCount = leaf.table === 'one' ? 2 : 2 + Math.floor(rnd() * 3);
    const colours = [...colourNames].sort(() => rnd() - 0.5).slice(0, variantCount);
    const soldOut = n % 11 === 7; // some products are out of stock everywhere
    const notInNorthAmerica = n % 9 === 4; // some are not sold in one market
    const onSale = n % 5 === 2;
    const table = SIZE_TABLES[leaf.table];
    const variations = colours.map((colour, vi) => ({
      id: `${id}-V${vi + 1}`,
      description: colour,
      sku: `-${colour.slice(0, 3).toUpperCase()}`,
      status: 'active',
      sizetable: { id: table.id, description: table.description },
      sizes: table.names.map((sizeName, si) => {
        const stockholm = soldOut ? 0 : Math.floor(rnd() * 12);
        const berlin = soldOut ? 0 : Math.floor(rnd() * 6);
        return {
          id: sizeId(leaf.table, sizeName),
          description: sizeName,
          sku: `${id}-${vi + 1}-${sizeName.replace(/\s+/g, '')}`,
          ean: `735${String(1_000_000_000 + n * 1000 + vi * 50 + si).padStart(10, '0')}`,
          warehouseitems: [
            { id: 'W-STO', qty: String(stockholm) },
            { id: 'W-BER', qty: String(berlin) },
          ],
        };
      }),
      displays: [
        {
          store: '1',
          categories: [{ id: leaf.id }],
          markets: DEMO_MARKETS.filter((m) => !(notInNorthAmerica && m.id === '3')).map((m) => ({ id: m.id })),
          minimumorderamount: '1',
          orderdenominator: '1',
        },
      ],
    }));
    products.push({
      id,
      status: 'active',
      sku: id.replace('P-', 'SKU'),
      description: name,
      folder: { id: leaf.id, description: leaf.name },
      brand: { id: brandId, description: brandName },
      collection: { id: collectionId, description: collectionName },
      harmcode: { id: leaf.table === 'shoes' ? '6403' : '6110', description: leaf.table === 'shoes' ? 'Footwear' : 'Apparel' },
      countryoforigin: pick(['SE', 'PT', 'IT', 'JP', 'PL']),
      weight: { value: String(0.2 + Math.round(rnd() * 15) / 10), unit: 'kg' },
      variations,
      media: variations.flatMap((v, vi) => [
        { id: `${v.id}-IMG1`, image: `/media/demo/${id.toLowerCase()}-${vi + 1}-front.svg`, variation: { id: v.id } },
        { id: `${v.id}-IMG2`, image: `/media/demo/${id.toLowerCase()}-${vi + 1}-back.svg`, variation: { id: v.id } },
      ]),
      metadata: {
        storemeta: {
          shortdescription: `${name} by ${brandName}.`,
          description: `${name} by ${brandName}, from the ${collectionName} collection.\nMade to last; care instructions on the label.`,
          metatitle: `${name} | ${brandName}`,
          metakeywords: `${leaf.name.toLowerCase()}, ${brandName.toLowerCase()}`,
          metadescription: `${name} by ${brandName}.`,
        },
      },
    });
    for (const m of DEMO_MARKETS) {
      const price = Math.round(leaf.base * (1 + (n % 7) / 10) * m.rate) + (m.currency === 'SEK' ? 0 : 0.95);
      const amount = m.currency === 'SEK' ? Math.round(price) : price;
      const list = pricelists.find((p) => p.id === m.pricelist)!;
      const before = onSale ? (m.currency === 'SEK' ? Math.round(amount * 1.3) : Math.round(amount * 1.3) + 0.95) : undefined;
      list.items.push({ id, price: amount.toFixed(2), ...(before ? { priceb: before.toFixed(2) } : {}) });
      // The first variant of some products costs a little more than the rest.
      if (n % 6 === 1) {
        list.items.push({ id, variation: { id: `${id}-V1`, price: (amount + (m.currency === 'SEK' ? 100 : 10)).toFixed(2) } });
      }
    }
  }
  return {
    markets: DEMO_MARKETS.map(({ id, store, type, description }) => ({ id, store, type, description })),
    warehouses: [
      { id: 'W-STO', description: 'Stockholm' },
      { id: 'W-BER', description: 'Berlin' },
    ],
    sizes,
    pricelists,
    products,
    categories,
    swatches: COLOURS,
  };
}
