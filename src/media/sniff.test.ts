// detectMediaType: what a file's first bytes say it is (markup-looking text as HTML, binary bytes not).
import { describe, expect, it } from 'vitest';
import { detectMediaType } from './sniff.js';

describe('detectMediaType', () => {
  it('calls markup-looking text HTML, but not binary bytes that happen to start with < and a letter', async () => {
    expect(await detectMediaType(Buffer.from('<custom-root><p>hi</p></custom-root>'))).toBe('text/html');
    expect(await detectMediaType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toBe(
      'image/svg+xml',
    );
    const binary = Buffer.concat([Buffer.from('<q'), Buffer.from([0x00, 0x01, 0xff, 0x10, 0x80, 0x02])]);
    expect(await detectMediaType(binary)).toBeUndefined();
  });
});
