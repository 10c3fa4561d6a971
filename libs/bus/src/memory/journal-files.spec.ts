import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eachLine, type LineFilter, messagesOf, startingWith } from './journal-files';

describe('eachLine', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'journal-lines-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Every line of `text` eachLine hands over, read `chunk` bytes at a time, with its positions. */
  const lines = (text: string, chunk: number, wanted?: LineFilter) => {
    const path = join(dir, 'f');
    writeFileSync(path, text);
    const fd = openSync(path, 'r');
    const out: [string, number, number][] = [];
    try {
      eachLine(
        fd,
        0,
        Buffer.byteLength(text),
        chunk,
        (line, position, next) => {
          out.push([line, position, next]);
          return true;
        },
        wanted,
      );
    } finally {
      closeSync(fd);
    }
    return out;
  };

  const text = '["m","t",1,0]\n["m","t",10,0]\nx\n["m","t",1,1,"é"]\n["c","g"]\n["m","t",1,2]\ntorn';

  it.each([3, 7, 16, 1 << 16])(
    'gives the same lines and positions read %p bytes at a time, the torn tail left out',
    (chunk) => {
      const got = lines(text, chunk);
      expect(got.map(([l]) => l)).toEqual([
        '["m","t",1,0]',
        '["m","t",10,0]',
        'x',
        '["m","t",1,1,"é"]',
        '["c","g"]',
        '["m","t",1,2]',
      ]);
      // Positions are bytes: the line after the two-byte é starts one byte later than its characters.
      expect(got[4]![1]).toBe(Buffer.byteLength('["m","t",1,0]\n["m","t",10,0]\nx\n["m","t",1,1,"é"]\n'));
      for (const [line, position, next] of got) expect(next).toBe(position + Buffer.byteLength(line) + 1);
    },
  );

  it.each([3, 7, 16, 1 << 16])(
    'with a prefix, hands over only the lines that start with it, at their own positions (%p-byte reads)',
    (chunk) => {
      const all = lines(text, chunk);
      const some = lines(text, chunk, startingWith(Buffer.from('["m","t",1,')));
      expect(some).toEqual(all.filter(([l]) => l.startsWith('["m","t",1,')));
      expect(some.map(([l]) => l)).toEqual(['["m","t",1,0]', '["m","t",1,1,"é"]', '["m","t",1,2]']);
    },
  );

  it.each([3, 7, 16, 1 << 16])(
    "messagesOf: a partition's message records from an offset on, their other lines not handed over (%p-byte reads)",
    (chunk) => {
      const records =
        '["m","t",1,9,"k"]\n["m","t",1,10,{"a":1}]\n["m","t",11,12]\n["m","u",1,12]\n["c","g"]\n["m","t",1,100,"k"]\n["m","t",1,x]\n';
      const texts = (from: number) => lines(records, chunk, messagesOf('t', 1, from)).map(([l]) => l);
      expect(texts(0)).toEqual([
        '["m","t",1,9,"k"]',
        '["m","t",1,10,{"a":1}]',
        '["m","t",1,100,"k"]',
        '["m","t",1,x]',
      ]);
      expect(texts(10)).toEqual(['["m","t",1,10,{"a":1}]', '["m","t",1,100,"k"]', '["m","t",1,x]']);
      // Not an offset in digits: handed over, for the parse to refuse.
      expect(texts(101)).toEqual(['["m","t",1,x]']);
    },
  );
});
