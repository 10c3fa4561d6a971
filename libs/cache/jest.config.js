module.exports = { ...require('../../jest.preset.js'), displayName: 'cache', rootDir: __dirname };
