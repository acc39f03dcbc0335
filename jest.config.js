// One jest run, four suites told apart by file suffix:
//   unit  *.spec.ts      embedded adapters only              (npm test)
//   int   *.int-spec.ts  real Postgres/Redis/Kafka/Meilisearch (npm run test:int)
//   e2e   *.e2e-spec.ts  the apps driven through HTTP and SOAP (npm run test:e2e)
//   browser *.browser-spec.ts  the storefront in Chromium (npm run test:browser)
//   faults *.fault-spec.ts the apps as processes on engines the suite pauses, stops and kills (npm run test:faults)
//   k8s    *.k8s-spec.ts  the local overlay on the cluster of tools/k8s/up, through its Services (tools/k8s/e2e)
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([name, [target]]) => [`^${name}$`, `<rootDir>/${target}`]),
);

const common = {
  rootDir: __dirname,
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' } }],
    // ESM-only packages (decision 13): jest's CommonJS sandbox cannot load them as they are, so swc
    // rewrites them to CommonJS like our own sources. Listed here and in transformIgnorePatterns.
    '/node_modules/(meilisearch)/.+\\.js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2023' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(meilisearch)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['**/*.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['**/*.int-spec.ts'], slowTestThreshold: 30 },
    { ...common, displayName: 'e2e', testMatch: ['**/*.e2e-spec.ts'], slowTestThreshold: 60 },
    { ...common, displayName: 'browser', testMatch: ['**/*.browser-spec.ts'], slowTestThreshold: 120 },
    { ...common, displayName: 'faults', testMatch: ['**/*.fault-spec.ts'], slowTestThreshold: 600 },
    { ...common, displayName: 'k8s', testMatch: ['**/*.k8s-spec.ts'], slowTestThreshold: 600 },
  ],
};
