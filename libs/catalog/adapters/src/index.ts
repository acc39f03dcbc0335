export * from './search/minisearch.search-index';
