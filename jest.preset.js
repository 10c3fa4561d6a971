// Shared Jest settings: swc for speed (decorator metadata on, for NestJS), tsconfig paths mapped.
const path = require('path');
const swcrc = JSON.parse(require('fs').readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));
delete swcrc.$schema;
delete swcrc.jsc.baseUrl;
delete swcrc.jsc.paths;

const libs = [
  'runtime',
  'infrastructure',
  'auth',
  'bus',
  'cache',
  'contracts',
  'domain',
  'persistence',
  'testing',
];
const apps = ['exchange', 'gateway', 'matching-engine', 'risk', 'funding', 'keeper', 'market-data'];
const moduleNameMapper = {};
for (const l of libs) moduleNameMapper[`^@perp/${l}$`] = path.join(__dirname, 'libs', l, 'src', 'index.ts');
for (const a of apps) moduleNameMapper[`^@perp/${a}$`] = path.join(__dirname, 'apps', a, 'src', 'index.ts');

module.exports = {
  testEnvironment: 'node',
  // Tests and hooks without their own timeout: most start an exchange (Nest, migrations) in a
  // beforeAll, which takes seconds and, on a loaded 2-core machine, more than Jest's default 5 s.
  testTimeout: 30_000,
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
    // ESM-only packages that client libraries (ccxt, ethers' deps) pull in.
    '^.+\\.m?js$': [
      '@swc/jest',
      {
        swcrc: false,
        module: { type: 'commonjs' },
        jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(.*/)?(@noble|@scure)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testMatch: ['**/*.spec.ts'],
};
