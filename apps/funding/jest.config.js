module.exports = { ...require('../../jest.preset.js'), displayName: 'funding', rootDir: __dirname };
