/** Folds diacritics and case the way search does: `Café` → `cafe` (NFD, combining marks stripped, lower case). */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/**
 * A URL slug of a name: diacritics folded, letters and digits of any script kept, everything else a single
 * hyphen. `Café Sweater` → `cafe-sweater`, `Платье` → `платье`. Empty when the name has no letter or digit.
 */
export function slugify(name: string): string {
  return foldText(name)
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The first free slug among `base`, `base-2`, `base-3`, …; keeps `current` when it already is one of
 * those, so a URI does not change on an update that does not change the name.
 */
export async function uniqueSlug(
  base: string,
  current: string | null | undefined,
  taken: (uri: string) => Promise<boolean>,
): Promise<string> {
  const root = base || 'item';
  if (current && (current === root || new RegExp(`^${escapeRegExp(root)}-\\d+$`).test(current))) return current;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? root : `${root}-${n}`;
    if (!(await taken(candidate))) return candidate;
  }
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
