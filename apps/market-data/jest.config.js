module.exports = { ...require('../../jest.preset.js'), displayName: 'market-data', rootDir: __dirname };
