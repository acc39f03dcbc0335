import type { Ref, SoapProduct } from '@commerce/erp-contracts';
import { itemIdOf, StockChanged } from '@commerce/catalog-contracts';
import type { AppliedProduct } from './applied-products';
import { InvalidProductError } from './catalog.errors';
import { systemClock, type CatalogRepository, type Clock } from './catalog.repository';
import type { ProductKey } from './products.repository';
import { readProductBatch, type ProductBatch } from './product-batch';
import {
  isVisibleStatus,
  type CatalogRef,
  type Item,
  type MediaImage,
  type Product,
  type RefKind,
  type Size,
  type Variant,
} from './product';
import { slugify, uniqueSlug } from './slug';
import { deepEqual, FieldErrors, isYes, pick, productUpsertedEvents } from './upsert.helpers';

export interface ApplyUpsertDeps {
  catalog: CatalogRepository;
  clock?: Clock;
  /**
   * Handed the products written with their ProductUpserted's id, inside the transaction: keep them
   * only once it commits (`AppliedProducts`).
   */
  onApplied?: (applied: AppliedProduct[]) => void;
  /** Products merged between two writes of a part (decision 110; `WRITE_PART_PRODUCTS` by default, 0: the whole batch at the end). */
  writePartProducts?: number;
}

export interface ApplyUpsertResult {
  productId: number;
  /** False when the upsert changed nothing (a redelivery or a repeated SOAP call): no event then. */
  changed: boolean;
}

type Variation = NonNullable<SoapProduct['variations']>[number];
type SoapSizeStock = NonNullable<Variation['sizes']>[number];

/** What an upsert changed besides the product itself: refs renamed (other products show them too). */
interface SideEffects {
  changed: boolean;
  alsoAffected: ProductKey[];
}

/**
 * Applies products from the ERP, in order, in one transaction (a `products_Update` batch): each one's
 * brand, collection and categories are resolved, it is merged into the stored product (fields the ERP
 * leaves out keep their value; variations, sizes and warehouses it names are added or updated, the others
 * kept; `…remove` lists remove), and `ProductUpserted` is recorded in the same transaction when anything
 * changed — for this product, and for the others that show a brand, collection, category or size this
 * upsert renamed. What the batch names is read with one query per table and the products are written
 * with one statement per table (`readProductBatch`); the outcome is that of applying them one by one.
 * A product with a bad number fails the whole batch before anything is read.
 */
export async function applyProductUpserts(deps: ApplyUpsertDeps, soaps: SoapProduct[]): Promise<ApplyUpsertResult[]> {
  if (soaps.length === 0) return [];
  const numbers = soaps.map(parseNumbers);
  const now = (deps.clock ?? systemClock).now().toISOString();
  const part = deps.writePartProducts ?? WRITE_PART_PRODUCTS;
  return deps.catalog.transaction(async (uow) => {
    const batch = await readProductBatch(uow, soaps);
    try {
      const results: ApplyUpsertResult[] = [];
      for (const [i, soap] of soaps.entries()) {
        results.push(await applyOne(batch, soap, numbers[i]!, now));
        // Postgres writes this part while the next products are merged (decision 110).
        if (part > 0 && batch.stagedCount >= part) await batch.writeStaged();
        else await batch.yieldToWrites();
      }
      const applied = await batch.flush();
      deps.onApplied?.(applied);
      return results;
    } finally {
      // Whatever ends the apply, no statement is left running when the transaction ends.
      await batch.writesDone();
    }
  });
}

/** Products merged between two writes of a batch's part (decision 110). */
export const WRITE_PART_PRODUCTS = 100;

/** One product (`applyProductUpserts` of a batch of one). */
export async function applyProductUpsert(deps: ApplyUpsertDeps, soap: SoapProduct): Promise<ApplyUpsertResult> {
  return (await applyProductUpserts(deps, [soap]))[0]!;
}

async function applyOne(batch: ProductBatch, soap: SoapProduct, numbers: Map<string, number>, now: string): Promise<ApplyUpsertResult> {
  const existing = batch.findProduct(soap.id);
  const effects: SideEffects = { changed: false, alsoAffected: [] };
  const brandId = await resolveRefId(batch, 'brand', soap.brand, existing?.brandId ?? null, effects);
  const collectionId = await resolveRefId(batch, 'collection', soap.collection, existing?.collectionId ?? null, effects);
  const categoryId = await resolveCategoryId(batch, soap.folder, existing?.categoryId ?? null, effects);

  const meta = soap.metadata?.storemeta;
  const name = pick(soap.description?.trim(), existing?.name, soap.id);
  const product: Product = {
    id: existing?.id ?? (await batch.nextProductId()),
    externalId: soap.id,
    name,
    sku: pick(soap.sku, existing?.sku, ''),
    status: pick(soap.status, existing?.status, ''),
    visible: soap.status === undefined ? (existing?.visible ?? true) : isVisibleStatus(soap.status),
    description: pick(meta?.description, existing?.description, ''),
    excerpt: pick(meta?.shortdescription, existing?.excerpt, ''),
    metaTitle: pick(meta?.metatitle, existing?.metaTitle, ''),
    metaDescription: pick(meta?.metadescription, existing?.metaDescription, ''),
    metaKeywords: pick(meta?.metakeywords, existing?.metaKeywords, ''),
    countryOfOrigin: pick(soap.countryoforigin, existing?.countryOfOrigin, ''),
    harmCode: soap.harmcode ? soap.harmcode.id.trim() : (existing?.harmCode ?? ''),
    harmCodeDescription: soap.harmcode
      ? pick(soap.harmcode.description?.trim(), soap.harmcode.id.trim() === existing?.harmCode ? existing.harmCodeDescription : '', '')
      : (existing?.harmCodeDescription ?? ''),
    weightValue: pick(soap.weight?.value?.trim(), existing?.weightValue, ''),
    weightUnit: pick(soap.weight?.unit?.trim(), existing?.weightUnit, ''),
    comment: pick(soap.comment, existing?.comment, ''),
    brandId,
    collectionId,
    categoryId,
    media: soap.media ? mediaOf(soap) : (existing?.media ?? []),
    variants: [],
    createdAt: existing?.createdAt ?? now,
    modifiedAt: existing?.modifiedAt ?? now,
  };

  const variants = new Map((existing?.variants ?? []).map((v) => [v.externalId, v]));
  const stock = new Map<string, StockItem>(); // items whose stock this upsert changed
  for (const [vi, soapVariant] of (soap.variations ?? []).entries()) {
    const before = variants.get(soapVariant.id);
    const variant: Variant = {
      id: before?.id ?? (await batch.nextVariantId()),
      externalId: soapVariant.id,
      name: pick(soapVariant.description?.trim(), before?.name, ''),
      sku: pick(soapVariant.sku, before?.sku, ''),
      status: pick(soapVariant.status, before?.status, ''),
      visible: soapVariant.status === undefined ? (before?.visible ?? true) : isVisibleStatus(soapVariant.status),
      uri: before?.uri ?? '',
      position: before?.position ?? variants.size,
      stockId: pick(soapVariant.stockid, before?.stockId, ''),
      sizeTableExternalId: soapVariant.sizetable ? soapVariant.sizetable.id.trim() || null : (before?.sizeTableExternalId ?? null),
      categoryIds: await displayCategories(batch, soapVariant, before?.categoryIds ?? [], effects),
      markets: await displayMarkets(batch, soapVariant, before?.markets ?? null),
      itemQuantityMinimum: numbers.get(`variations.${vi}.minimumorderamount`) ?? before?.itemQuantityMinimum ?? 1,
      itemQuantityMultipleOf: numbers.get(`variations.${vi}.orderdenominator`) ?? before?.itemQuantityMultipleOf ?? 1,
      items: before?.items ?? [],
    };
    const items = new Map(variant.items.map((i) => [i.sizeExternalId, i]));
    for (const [si, soapSize] of (soapVariant.sizes ?? []).entries()) {
      const size = await resolveSize(batch, soapSize.id, soapSize.description, effects);
      const prior = items.get(soapSize.id);
      const item = mergeItem(variant, size, soapSize, prior, numbers, `variations.${vi}.sizes.${si}`, items.size);
      items.set(soapSize.id, item);
      if (!prior || prior.stock !== item.stock || !deepEqual(prior.warehouseStock, item.warehouseStock))
        stock.set(item.id, stockOf(variant, item));
    }
    variant.items = [...items.values()].sort((a, b) => a.position - b.position);
    variants.set(variant.externalId, variant);
  }
  product.variants = [...variants.values()].sort((a, b) => a.position - b.position);
  // The primary variant's URI is the product name's slug; others add their variant name.
  const assigned = new Set<string>();
  for (const variant of product.variants) {
    const base = slugify(variant.position === 0 || !variant.name ? product.name : `${product.name} ${variant.name}`);
    const current = assigned.has(variant.uri) ? null : variant.uri;
    variant.uri = await uniqueSlug(
      base,
      current,
      async (uri) => assigned.has(uri) || (await batch.variantUriTaken(uri, variant.id)),
      (root) => batch.variantUriHighestSuffix(root),
    );
    assigned.add(variant.uri);
  }

  const productChanged = !existing || !sameProduct(existing, product);
  if (!productChanged && !effects.changed) return { productId: product.id, changed: false };
  if (productChanged) {
    product.modifiedAt = now;
    batch.saveProduct(product);
  }
  batch.publish(productUpsertedEvents([...effects.alsoAffected, { id: product.id, externalId: product.externalId }]));
  if (stock.size > 0) {
    batch.publish([
      StockChanged.create(String(product.id), {
        productId: String(product.id),
        externalId: product.externalId,
        items: [...stock.values()],
      }),
    ]);
  }
  return { productId: product.id, changed: true };
}

type StockItem = ReturnType<typeof StockChanged.create>['payload']['items'][number];

/** An item's stock as the ERP names it (catalog.stock.v1). */
function stockOf(variant: Variant, item: Item): StockItem {
  const warehouses = Object.entries(item.warehouseStock).map(([id, qty]) => ({ id, qty }));
  return {
    variation: variant.externalId,
    size: item.sizeExternalId,
    sku: item.sku,
    ean: item.ean,
    qty: item.stock,
    ...(warehouses.length > 0 ? { warehouses } : {}),
  };
}

const sameProduct = (a: Product, b: Product): boolean => deepEqual({ ...a, modifiedAt: '' }, { ...b, modifiedAt: '' });

function mediaOf(soap: SoapProduct): MediaImage[] {
  return (soap.media ?? []).filter((m) => m.image).map((m) => ({ url: m.image!, variantExternalId: m.variation?.id ?? null }));
}

/** `localeCompare`'s order (same locale, same options), without a collator made per call. */
const collator = new Intl.Collator();

/**
 * Stock of an item: the warehouses the ERP lists are set (the others kept), and the item's stock is the
 * sum over its warehouses; an item no warehouse lists counts the size's own `qty`.
 */
function mergeItem(
  variant: Variant,
  size: Size,
  soapSize: SoapSizeStock,
  prior: Item | undefined,
  numbers: Map<string, number>,
  path: string,
  nextPosition: number,
): Item {
  const warehouseStock = { ...(prior?.warehouseStock ?? {}) };
  for (const [wi, w] of (soapSize.warehouseitems ?? []).entries()) {
    const qty = numbers.get(`${path}.warehouseitems.${wi}.qty`);
    if (qty !== undefined && w.id.trim() !== '') warehouseStock[w.id.trim()] = qty;
  }
  const qty = numbers.get(`${path}.qty`) ?? prior?.qty ?? 0;
  const warehouses = Object.values(warehouseStock);
  return {
    id: itemIdOf(variant.id, size.id),
    sizeId: size.id,
    sizeExternalId: soapSize.id,
    sizeName: size.name,
    sizeTableExternalId: size.sizeTableExternalId,
    sku: pick(soapSize.sku, prior?.sku, ''),
    ean: pick(soapSize.ean, prior?.ean, ''),
    qty,
    warehouseStock: Object.fromEntries(Object.entries(warehouseStock).sort(([a], [b]) => collator.compare(a, b))),
    stock: warehouses.length > 0 ? warehouses.reduce((sum, q) => sum + q, 0) : qty,
    preorder: soapSize.preorder === undefined ? (prior?.preorder ?? false) : isYes(soapSize.preorder),
    position: prior?.position ?? nextPosition,
  };
}

/** A variant's display categories: every display's `categories` added, `categoriesremove` removed. */
async function displayCategories(batch: ProductBatch, variation: Variation, current: number[], effects: SideEffects): Promise<number[]> {
  const ids = new Set(current);
  for (const d of variation.displays ?? []) {
    for (const ref of d.categories ?? []) {
      const id = await resolveCategoryId(batch, ref, null, effects);
      if (id !== null) ids.add(id);
    }
    for (const ref of d.categoriesremove ?? []) {
      const found = batch.findCategory(ref.id);
      if (found) ids.delete(found.id);
    }
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * A variant's markets: every display's `markets` added, `marketsremove` removed. A variant whose displays
 * never named a market is displayed in every market (null); a first `marketsremove` on such a variant
 * starts from every market the catalog knows (`markets_Update`).
 */
async function displayMarkets(batch: ProductBatch, variation: Variation, current: string[] | null): Promise<string[] | null> {
  let markets = current === null ? null : new Set(current);
  for (const d of variation.displays ?? []) {
    const add = (d.markets ?? []).map((m) => m.id.trim()).filter(Boolean);
    const remove = (d.marketsremove ?? []).map((m) => m.id.trim()).filter(Boolean);
    if (markets === null && add.length === 0 && remove.length === 0) continue;
    if (markets === null) markets = new Set(add.length === 0 ? await batch.listMarketIds() : []);
    for (const m of add) markets.add(m);
    for (const m of remove) markets.delete(m);
  }
  return markets === null ? null : [...markets].sort();
}

/**
 * The numbers of a SOAP product (every SOAP scalar is a string), checked before anything is written:
 * one that is not a whole number makes the event poison, so it fails loudly instead of storing garbage.
 */
function parseNumbers(soap: SoapProduct): Map<string, number> {
  const numbers = new Map<string, number>();
  const errors = new FieldErrors();
  const set = (path: string, n: number | undefined) => n !== undefined && numbers.set(path, n);
  for (const [vi, v] of (soap.variations ?? []).entries()) {
    for (const [di, d] of (v.displays ?? []).entries()) {
      for (const field of ['minimumorderamount', 'orderdenominator'] as const) {
        const n = errors.wholeNumber(`variations.${vi}.displays.${di}.${field}`, d[field]);
        // The first display that gives the value decides; 0 counts as "no constraint" (1).
        if (n !== undefined && !numbers.has(`variations.${vi}.${field}`)) numbers.set(`variations.${vi}.${field}`, Math.max(1, n));
      }
    }
    for (const [si, s] of (v.sizes ?? []).entries()) {
      const path = `variations.${vi}.sizes.${si}`;
      set(`${path}.qty`, errors.wholeNumber(`${path}.qty`, s.qty));
      for (const [wi, w] of (s.warehouseitems ?? []).entries()) {
        set(`${path}.warehouseitems.${wi}.qty`, errors.wholeNumber(`${path}.warehouseitems.${wi}.qty`, w.qty));
      }
    }
  }
  if (errors.any) throw new InvalidProductError(errors.fields);
  return numbers;
}

/** Finds or creates a brand/collection; a new description renames it (and re-derives its URI). */
async function resolveRefId(
  batch: ProductBatch,
  kind: RefKind,
  ref: Ref | undefined,
  current: number | null,
  effects: SideEffects,
): Promise<number | null> {
  if (!ref) return current;
  if (ref.id.trim() === '') return null;
  const existing = batch.findRef(kind, ref.id);
  const name = pick(ref.description?.trim(), existing?.name, ref.id);
  if (existing && existing.name === name) return existing.id;
  const uri = await uniqueSlug(
    slugify(name),
    existing && slugify(existing.name) === slugify(name) ? existing.uri : null,
    (u) => batch.uow.brandsAndCollections.uriTaken(kind, u, existing?.id ?? null),
    (root) => batch.uow.brandsAndCollections.uriHighestSuffix(kind, root),
  );
  const saved: CatalogRef = await batch.saveRef(kind, { id: existing?.id ?? null, externalId: ref.id, name, uri });
  effects.changed = true;
  if (existing) effects.alsoAffected.push(...(await batch.uow.products.keysWithRef(kind, existing.id)));
  return saved.id;
}

/**
 * Finds a category by the ERP's id. The store configuration names and places the categories it lists;
 * one it does not list is created at the top level, after the configured ones, named by the ERP's
 * description (which renames it later, as for brands).
 */
async function resolveCategoryId(
  batch: ProductBatch,
  ref: Ref | undefined,
  current: number | null,
  effects: SideEffects,
): Promise<number | null> {
  if (!ref) return current;
  if (ref.id.trim() === '') return null;
  const existing = batch.findCategory(ref.id);
  if (existing?.configured) return existing.id;
  const name = pick(ref.description?.trim(), existing?.name, ref.id);
  if (existing && existing.name === name) return existing.id;
  const uri = await uniqueSlug(
    slugify(name),
    existing && slugify(existing.name) === slugify(name) ? existing.uri : null,
    (u) => batch.uow.categories.uriTaken(u, existing?.id ?? null),
    (root) => batch.uow.categories.uriHighestSuffix(root),
  );
  const id = existing?.id ?? (await batch.uow.categories.nextId());
  const position = existing?.position ?? (await batch.uow.categories.nextTopPosition());
  await batch.saveCategory({ id, externalId: ref.id, name, uri, parentId: null, position, configured: false, namePath: [name] });
  effects.changed = true;
  if (existing) effects.alsoAffected.push(...(await batch.uow.products.keysInCategories([existing.id])));
  return id;
}

/** Finds or creates a size; a description renames it, for every product that has it. */
async function resolveSize(batch: ProductBatch, externalId: string, description: string | undefined, effects: SideEffects): Promise<Size> {
  const existing = batch.findSize(externalId);
  const name = pick(description?.trim(), existing?.name, externalId);
  if (existing && existing.name === name) return existing;
  const saved = await batch.saveSize({
    id: existing?.id ?? null,
    externalId,
    name,
    sku: existing?.sku ?? '',
    ean: existing?.ean ?? '',
    comment: existing?.comment ?? '',
    sizeTableExternalId: existing?.sizeTableExternalId ?? null,
  });
  if (existing) {
    effects.changed = true;
    effects.alsoAffected.push(...(await batch.uow.products.keysWithSizes([existing.id])));
  }
  return saved;
}
