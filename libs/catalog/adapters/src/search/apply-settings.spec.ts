import { progressLine, settingsDiff } from './apply-settings';

describe('search:apply', () => {
  it('shows the settings of the file that differ from the live index, not the defaults Meilisearch adds', () => {
    const live = {
      stopWords: ['of', 'the'],
      synonyms: { tee: ['t-shirt'], old: ['gone'] },
      typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 4, twoTypos: 100 }, disableOnNumbers: false },
      rankingRules: ['words', 'typo'],
      dictionary: [],
    };
    expect(
      settingsDiff(live, {
        stopWords: ['the', 'of'],
        synonyms: { tee: ['t-shirt'] },
        typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 4, twoTypos: 100 } },
        rankingRules: ['typo', 'words'],
      }),
    ).toEqual([
      { setting: 'synonyms', live: { tee: ['t-shirt'], old: ['gone'] }, file: { tee: ['t-shirt'] } },
      { setting: 'rankingRules', live: ['words', 'typo'], file: ['typo', 'words'] },
    ]);
    expect(settingsDiff({}, { stopWords: [] })).toEqual([{ setting: 'stopWords', live: undefined, file: [] }]);
  });

  it('draws the progress bar with products, percent, rate and time left', () => {
    expect(progressLine({ done: 1200, total: 4800 }, 4000)).toBe(
      '[########......................] 1200/4800 products  25%  300/s  ETA 12 s',
    );
    expect(progressLine({ done: 4800, total: 4800 }, 16000)).toBe('[##############################] 4800/4800 products  100%  300/s  done');
  });
});
