import { catalogApiSuite } from './catalog-api.scenario';

catalogApiSuite('products, filter, URIs and categories on the embedded engines');
