import { api } from '../api';
import { fill, h } from '../dom';
import { go } from '../router';
import { productCard } from '../ui';
import type { Category, FilterValue, ProductList } from '../types';
import type { Screen } from '../main';

const PAGE_SIZE = 12;
/** Facets as the API names them; the store's extra filter fields (e.g. `countryOrigin`) come after these. */
const FACET_TITLES: Record<string, string> = {
  brands: 'Brand',
  collections: 'Collection',
  'swatch.desc': 'Colour',
  countryOrigin: 'Made in',
};
const ID_FIELDS = new Set(['brands', 'collections', 'categories']);
const SORTS: Record<string, { label: string; order?: Array<{ field: string; order: 'asc' | 'desc' }> }> = {
  '': { label: 'Relevance' },
  'price-asc': { label: 'Price, low to high', order: [{ field: 'priceAsNumber', order: 'asc' }] },
  'price-desc': { label: 'Price, high to low', order: [{ field: 'priceAsNumber', order: 'desc' }] },
  newest: { label: 'Newest', order: [{ field: 'createdAt', order: 'desc' }] },
  name: { label: 'Name', order: [{ field: 'uri', order: 'asc' }] },
};

let categoriesCache: Category[] | null = null;
/** Filters stand open beside the grid on wide screens and fold away above it on narrow ones. */
const wide = matchMedia('(min-width: 900px)');
wide.addEventListener('change', () =>
  document.querySelectorAll<HTMLDetailsElement>('details.filters').forEach((d) => (d.open = wide.matches)),
);
const countryNames = (() => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' });
  } catch {
    return null;
  }
})();

function facetLabel(field: string, v: FilterValue): string {
  const d = v.data ?? {};
  if (field === 'brands') return String(d['brandName'] ?? v.value);
  if (field === 'collections') return String(d['collectionName'] ?? v.value);
  if (field === 'countryOrigin') return countryNames?.of(v.value) ?? v.value;
  return v.value;
}

/** The hash's query with one facet value toggled (and the page reset). */
function toggled(query: URLSearchParams, field: string, value: string): string {
  const next = new URLSearchParams(query);
  const values = new Set((next.get(field) ?? '').split(',').filter(Boolean));
  if (values.has(value)) values.delete(value);
  else values.add(value);
  if (values.size) next.set(field, [...values].join(','));
  else next.delete(field);
  next.delete('page');
  return `#/?${next}`;
}

/** Every other key of the hash's query is a filter field: the four standard ones and the store's extra ones. */
const NOT_FILTERS = new Set(['q', 'page', 'sort']);

function requestOf(query: URLSearchParams): Record<string, unknown> {
  const fields = [...new Set(query.keys())].filter((k) => !NOT_FILTERS.has(k));
  const page = Math.max(1, Number(query.get('page')) || 1);
  const body: Record<string, unknown> = { limit: PAGE_SIZE, skipFirst: (page - 1) * PAGE_SIZE };
  const q = query.get('q');
  if (q) body['search'] = q;
  for (const field of fields) {
    const values = (query.get(field) ?? '').split(',').filter(Boolean);
    if (values.length) body[field] = ID_FIELDS.has(field) ? values.map(Number) : values;
  }
  const sort = SORTS[query.get('sort') ?? '']?.order;
  if (sort) body['sortOrder'] = sort;
  return body;
}

function categoryTree(categories: Category[], counts: Map<string, FilterValue>, active: string | null): HTMLElement {
  const children = (parent: string | undefined): HTMLElement | null => {
    const here = categories.filter((c) => c.inCategory === parent);
    if (!here.length) return null;
    return h(
      'ul',
      {},
      here.map((c) => {
        const n = counts.get(c.category);
        return h(
          'li',
          {},
          h(
            'a',
            { href: `#/?categories=${encodeURIComponent(c.category)}`, 'aria-current': c.category === active ? 'page' : null },
            c.name[c.name.length - 1] ?? c.uri,
            n ? h('span', { class: 'count', title: `${n.count} here of ${n.totalCount} in all` }, ` ${n.count}/${n.totalCount}`) : null,
          ),
          children(c.category),
        );
      }),
    );
  };
  return h(
    'nav',
    { class: 'categories', 'aria-label': 'Categories' },
    h('h2', { class: 'side-title' }, 'Categories'),
    h('p', {}, h('a', { href: '#/', 'aria-current': active ? null : 'page' }, 'All products')),
    children(undefined),
  );
}

function facet(field: string, values: FilterValue[], query: URLSearchParams): HTMLElement | null {
  if (!values.length) return null;
  const chosen = new Set((query.get(field) ?? '').split(',').filter(Boolean));
  const title = FACET_TITLES[field] ?? field.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase());
  return h(
    'fieldset',
    { class: 'facet', 'data-facet': field },
    h('legend', {}, title),
    values.map((v) => {
      const id = `facet-${field.replace(/\W/g, '-')}-${v.value.replace(/\W/g, '-')}`;
      const swatch = field === 'swatch.desc' ? String((v.data ?? {})['hex'] ?? '') : '';
      return h(
        'div',
        { class: `facet-value${v.count === 0 && !chosen.has(v.value) ? ' empty' : ''}` },
        h('input', { type: 'checkbox', id, checked: chosen.has(v.value), onchange: () => go(toggled(query, field, v.value)) }),
        h(
          'label',
          { for: id },
          swatch ? h('span', { class: 'dot', style: `background:${swatch}`, 'aria-hidden': 'true' }) : null,
          facetLabel(field, v),
          h(
            'span',
            { class: 'count' },
            h('span', { 'aria-hidden': 'true' }, `${v.count}/${v.totalCount}`),
            h('span', { class: 'visually-hidden' }, `, ${v.count} of ${v.totalCount}`),
          ),
        ),
      );
    }),
  );
}

function pager(query: URLSearchParams, count: number): HTMLElement | null {
  const pages = Math.ceil(count / PAGE_SIZE);
  if (pages <= 1) return null;
  const page = Math.min(pages, Math.max(1, Number(query.get('page')) || 1));
  const hrefOf = (n: number) => {
    const next = new URLSearchParams(query);
    if (n > 1) next.set('page', String(n));
    else next.delete('page');
    return `#/?${next}`;
  };
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    page > 1 ? h('a', { href: hrefOf(page - 1), rel: 'prev' }, '← Previous') : h('span', { class: 'disabled' }, '← Previous'),
    h(
      'ol',
      {},
      Array.from({ length: pages }, (_, i) => i + 1).map((n) =>
        h(
          'li',
          {},
          n === page
            ? h('a', { href: hrefOf(n), 'aria-current': 'page' }, String(n))
            : h('a', { href: hrefOf(n), 'aria-label': `Page ${n}` }, String(n)),
        ),
      ),
    ),
    page < pages ? h('a', { href: hrefOf(page + 1), rel: 'next' }, 'Next →') : h('span', { class: 'disabled' }, 'Next →'),
  );
}

export const renderHome: Screen = async (main, _parts, query) => {
  const [list, categories] = await Promise.all([
    api<ProductList>('POST', 'products', requestOf(query)),
    categoriesCache ? Promise.resolve({ categories: categoriesCache }) : api<{ categories: Category[] }>('GET', 'categories'),
  ]);
  categoriesCache = categories.categories;

  const q = query.get('q');
  const activeCategory = (query.get('categories') ?? '').split(',').filter(Boolean)[0] ?? null;
  const category = categoriesCache.find((c) => c.category === activeCategory);
  const title = q ? `Results for “${q}”` : category ? category.name.join(' / ') : 'All products';
  const counts = new Map((list.filter.find((f) => f.field === 'categories')?.values ?? []).map((v) => [v.value, v]));
  const sortSelect = h(
    'select',
    {
      id: 'sort',
      onchange: (event: Event) => {
        const next = new URLSearchParams(query);
        const value = (event.target as HTMLSelectElement).value;
        if (value) next.set('sort', value);
        else next.delete('sort');
        next.delete('page');
        go(`#/?${next}`);
      },
    },
    Object.entries(SORTS).map(([value, s]) => h('option', { value, selected: (query.get('sort') ?? '') === value }, s.label)),
  );
  const filters = h(
    'details',
    { class: 'filters', open: wide.matches },
    h('summary', {}, 'Categories and filters'),
    categoryTree(categoriesCache, counts, activeCategory),
    h(
      'form',
      { class: 'facets', 'aria-label': 'Filters', onsubmit: (e: Event) => e.preventDefault() },
      list.filter.filter((f) => f.field !== 'categories').map((f) => facet(f.field, f.values, query)),
    ),
  );
  fill(
    main,
    h(
      'div',
      { class: 'catalog' },
      h('aside', { class: 'sidebar' }, filters),
      h(
        'section',
        { class: 'results', 'aria-labelledby': 'results-title' },
        h('h1', { id: 'results-title' }, title),
        [...query.keys()].length
          ? null
          : h(
              'p',
              { class: 'promo' },
              h('strong', {}, 'Welcome!'),
              ' Take 10% off your order with the code ',
              h('strong', {}, 'WELCOME10'),
              ' in your bag.',
            ),
        h(
          'div',
          { class: 'toolbar' },
          h('p', { class: 'result-count', role: 'status' }, `${list.productCount} product${list.productCount === 1 ? '' : 's'}`),
          h('div', { class: 'sort' }, h('label', { for: 'sort' }, 'Sort by'), sortSelect),
        ),
        list.products.length
          ? h(
              'ul',
              { class: 'grid' },
              list.products.map((p) => productCard(p, 'h2')),
            )
          : h(
              'div',
              { class: 'empty-results' },
              h('p', {}, 'Nothing matches. Try fewer filters or another word.'),
              h('p', {}, h('a', { href: '#/' }, 'See all products')),
            ),
        pager(query, list.productCount),
      ),
    ),
  );
  const search = document.querySelector<HTMLInputElement>('#search-form input[name="q"]');
  if (search && document.activeElement !== search) search.value = q ?? '';
};
