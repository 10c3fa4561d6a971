module.exports = { ...require('../../jest.preset.js'), displayName: 'keeper', rootDir: __dirname };
