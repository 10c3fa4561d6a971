// End-to-end suites start whole exchanges (and clusters) in their hooks: 5 s is too tight on a
// loaded 2-core machine, so hooks and tests here get 30 s unless they set their own.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'exchange',
  rootDir: __dirname,
  testTimeout: 30_000,
};
