module.exports = { ...require('../../jest.preset.js'), displayName: 'exchange', rootDir: __dirname };
