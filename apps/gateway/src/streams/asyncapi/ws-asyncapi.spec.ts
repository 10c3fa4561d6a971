import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@perp/testing';
import { buildWsAsyncApi } from './ws-asyncapi';

describe('WebSocket AsyncAPI document', () => {
  const file = join(REPO_ROOT, 'docs', 'asyncapi', 'websocket.json');

  it('has every path, and every message reference resolves', () => {
    const doc = buildWsAsyncApi('1');
    expect(Object.values(doc.channels).map((c) => c.address)).toEqual([
      '/ws/{streams}',
      '/stream',
      '/public/ws/{streams}',
      '/public/stream',
      '/market/ws/{streams}',
      '/market/stream',
      '/ws/{listenKey}',
      '/private/ws',
      '/api/v1/ws',
    ]);
    const text = JSON.stringify(doc);
    for (const [, path] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      const target = path!.split('/').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], doc);
      expect([path, target !== undefined]).toEqual([path, true]);
    }
    expect(Object.keys(doc.components.messages)).toEqual(
      expect.arrayContaining([
        'ForceOrderEvent',
        'AlgoUpdate',
        'MarginCall',
        'NativeBookSnapshot',
        'NativeOrderUpdate',
      ]),
    );
  });

  it('the checked-in docs/asyncapi/websocket.json is the generated one (regenerate with UPDATE_ASYNCAPI=1)', () => {
    const generated = JSON.stringify(buildWsAsyncApi('1'), null, 2) + '\n';
    if (process.env.UPDATE_ASYNCAPI === '1') writeFileSync(file, generated);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(generated);
  });
});
