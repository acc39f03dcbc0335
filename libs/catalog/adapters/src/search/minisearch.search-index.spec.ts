import { MiniSearchIndex } from './minisearch.search-index';
import { searchIndexContract } from './search-index.contract';

describe('embedded search index (MiniSearch) matching rules', () => {
  searchIndexContract(async () => new MiniSearchIndex());
});
