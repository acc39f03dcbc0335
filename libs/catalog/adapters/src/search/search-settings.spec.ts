import { loadMeiliSettings } from './meilisearch.search-index';
import { parseSearchSettings, unfollowedSettingsLine } from './search-settings';

describe('search settings for the embedded engine', () => {
  it('follows the shipped settings file whole: nothing to warn about', () => {
    const settings = parseSearchSettings(loadMeiliSettings());
    expect(settings.unfollowed).toEqual([]);
    expect(unfollowedSettingsLine(settings, 'settings.json')).toBeUndefined();
    expect(settings.synonyms.get('trainers')).toEqual([['sneakers']]);
    expect(settings.synonyms.get('tee')).toEqual([['t', 'shirt']]);
  });

  it('normalises synonym keys and merges the alternatives of keys that normalise alike', () => {
    const s = parseSearchSettings({ synonyms: { Café: ['coffee shop'], cafe: ['Bistro', 'coffee shop'] } });
    expect(s.synonyms.get('cafe')).toEqual([['coffee', 'shop'], ['bistro']]);
  });

  it('follows custom ranking rules and adds the built-in rules a list leaves out, at its end', () => {
    const s = parseSearchSettings({ rankingRules: ['words', 'createdAt:desc', 'typo'] });
    expect(s.rankingRules).toEqual(['words', { field: 'createdAt', order: 'desc' }, 'typo', 'sort', 'proximity', 'attribute', 'exactness']);
  });

  it('names in one line what the embedded engine does not follow', () => {
    const s = parseSearchSettings({
      ...loadMeiliSettings(),
      distinctAttribute: 'platformProduct',
      rankingRules: ['words', 'geo', 'typo'],
    });
    expect(unfollowedSettingsLine(s, 'settings.json')).toBe(
      'search: the embedded engine does not follow ranking rule "geo"; distinctAttribute "platformProduct" from settings.json: results differ from Meilisearch\'s there',
    );
  });

  it('rejects a malformed file', () => {
    expect(() => parseSearchSettings({ synonyms: { tee: 't-shirt' } })).toThrow();
  });
});
