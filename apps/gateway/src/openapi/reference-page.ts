import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Files of swagger-ui-dist (npm, Apache-2.0) the page loads: served from node_modules, no CDN. */
export const REFERENCE_ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const;
export type ReferenceAsset = keyof typeof REFERENCE_ASSETS;

export const DOCUMENT_URLS = { fapi: '/api/v1/openapi/fapi.json', native: '/api/v1/openapi/native.json' };

const assetDir = () => dirname(require.resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Buffer>();

export function referenceAsset(name: ReferenceAsset): Buffer {
  let bytes = cache.get(name);
  if (!bytes) cache.set(name, (bytes = readFileSync(join(assetDir(), name))));
  return bytes;
}

/** GET /docs: Swagger UI over both documents (FAPI first; the top bar switches). */
export const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>perp-exchange API reference</title>
  <link rel="icon" href="/docs/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      urls: [
        { url: '${DOCUMENT_URLS.fapi}', name: 'FAPI' },
        { url: '${DOCUMENT_URLS.native}', name: 'Native' },
      ],
      dom_id: '#reference',
      deepLinking: true,
      docExpansion: 'list',
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
    });
  </script>
</body>
</html>
`;
