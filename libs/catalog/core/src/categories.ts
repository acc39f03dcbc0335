import type { CategoryDto } from '@commerce/catalog-contracts';
import type { Category } from './product';

/** A category as the checkout API shows it: `name` the path of names, `uri` the full path, `inCategory` the parent (absent at the top). */
export function categoryDto(category: Category): CategoryDto {
  return {
    category: String(category.id),
    name: category.namePath.length > 0 ? category.namePath : [category.name],
    uri: category.uri,
    ...(category.parentId !== null ? { inCategory: String(category.parentId) } : {}),
  };
}

/**
 * Categories in tree order: each one followed by its children, siblings by position (the order the
 * administration system sets), then id. Categories whose parent is missing count as top-level.
 */
export function categoryTreeOrder(categories: Category[]): Category[] {
  const ids = new Set(categories.map((c) => c.id));
  const children = new Map<number | null, Category[]>();
  for (const c of categories) {
    const parent = c.parentId !== null && ids.has(c.parentId) ? c.parentId : null;
    const list = children.get(parent);
    if (list) list.push(c);
    else children.set(parent, [c]);
  }
  for (const list of children.values()) list.sort((a, b) => a.position - b.position || a.id - b.id);
  const ordered: Category[] = [];
  const seen = new Set<number>();
  const visit = (parent: number | null) => {
    for (const c of children.get(parent) ?? []) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      ordered.push(c);
      visit(c.id);
    }
  };
  visit(null);
  return ordered;
}
