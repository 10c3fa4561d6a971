module.exports = { ...require('../../jest.preset.js'), displayName: 'risk', rootDir: __dirname };
