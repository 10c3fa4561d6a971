// Every project's tests in one run (CI); `nx run <project>:test` runs one project.
const fs = require('fs');
const path = require('path');
const projects = ['apps', 'libs'].flatMap((dir) =>
  fs
    .readdirSync(path.join(__dirname, dir))
    .map((name) => path.join(__dirname, dir, name, 'jest.config.js'))
    .filter((file) => fs.existsSync(file)),
);
module.exports = {
  projects,
  // Global with projects (Jest ignores it inside a project's config): see jest.preset.js.
  testTimeout: 30_000,
  reporters: ['default', '<rootDir>/libs/testing/summary-reporter.js'],
};
