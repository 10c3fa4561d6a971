module.exports = { ...require('../../jest.preset.js'), displayName: 'infrastructure', rootDir: __dirname };
