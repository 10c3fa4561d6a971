module.exports = { ...require('../../jest.preset.js'), displayName: 'matching-engine', rootDir: __dirname };
