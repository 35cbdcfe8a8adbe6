import { describe, expect, it } from 'vitest';
import { readLines, type TranscriptLine } from './line-reader.js';
import { RecordTooLargeError } from './stream-errors.js';

const encoder = new TextEncoder();

/** The bytes, cut into chunks of `size` (cuts land inside lines and characters). */
async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.slice(start, start + size);
}

async function lines(
  input: string | Uint8Array,
  options: { size?: number; maxRecordBytes?: number } = {},
): Promise<TranscriptLine[]> {
  const bytes = typeof input === 'string' ? encoder.encode(input) : input;
  const out: TranscriptLine[] = [];
  for await (const line of readLines({
    source: chunks(bytes, options.size ?? 3),
    maxRecordBytes: options.maxRecordBytes,
  })) {
    out.push(line);
  }
  return out;
}

describe('readLines', () => {
  it('reads lines across chunk boundaries, numbering blank ones', async () => {
    const result = await lines('{"a":1}\n\n{"b":"2"}\n');
    expect(result.map((line) => [line.line, line.offset, line.text])).toEqual([
      [1, 0, '{"a":1}'],
      [2, 8, ''],
      [3, 9, '{"b":"2"}'],
    ]);
  });

  it('drops the \\r of CRLF line ends', async () => {
    const result = await lines('one\r\ntwo\r\n', { size: 4 });
    expect(result.map((line) => line.text)).toEqual(['one', 'two']);
  });

  it('reads a final line without a newline', async () => {
    const result = await lines('first\nlast', { size: 100 });
    expect(result.map((line) => line.text)).toEqual(['first', 'last']);
  });

  it('decodes multi-byte characters cut between chunks and drops a leading BOM', async () => {
    const result = await lines('\uFEFF{"t":"héllo ✓"}\n{"t":"😀"}', { size: 1 });
    expect(result.map((line) => line.text)).toEqual(['{"t":"héllo ✓"}', '{"t":"😀"}']);
    expect(result.every((line) => !line.invalidUtf8)).toBe(true);
  });

  it('marks a line whose bytes are not UTF-8, and only that one', async () => {
    const bytes = new Uint8Array([...encoder.encode('ok\n'), 0x61, 0xff, 0x62, 0x0a]);
    const result = await lines(bytes);
    expect(result.map((line) => [line.text, line.invalidUtf8])).toEqual([
      ['ok', false],
      ['a\uFFFDb', true],
    ]);
  });

  it('refuses a line over maxRecordBytes with a typed error naming the line and offset', async () => {
    const text = `short\n${'x'.repeat(50)}\nnever read\n`;
    const error = await lines(text, { maxRecordBytes: 20, size: 7 }).catch((caught) => caught);
    expect(RecordTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ line: 2, offset: 6, maxRecordBytes: 20 });
    expect(error.message).toContain('line 2');
    expect(error.message).toContain('byte 6');
  });

  it('refuses an over-long line that arrives in one chunk, and one without a newline', async () => {
    await expect(
      lines(`${'y'.repeat(30)}\n`, { maxRecordBytes: 10, size: 1000 }),
    ).rejects.toSatisfy(RecordTooLargeError.isInstance);
    await expect(lines('z'.repeat(30), { maxRecordBytes: 10, size: 4 })).rejects.toSatisfy(
      RecordTooLargeError.isInstance,
    );
  });

  it('accepts a line of exactly maxRecordBytes', async () => {
    const result = await lines(`${'a'.repeat(10)}\r\n`, { maxRecordBytes: 12 });
    expect(result.map((line) => line.text)).toEqual(['a'.repeat(10)]);
  });
});
