import { describe, expect, it } from 'vitest';
import { RunnerConfigError } from '../errors.js';
import { capToolResult, ToolOutputCapPlugin } from './tool-output-cap.js';

function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

describe('capToolResult', () => {
  it('keeps a result that fits', () => {
    expect(capToolResult({ result: { ok: 'x'.repeat(100) }, maxBytes: 1024 })).toBeUndefined();
  });

  it('cuts a long string to the limit, keeping head and tail and saying how much was cut', () => {
    const text = `HEAD${'m'.repeat(10_000)}TAIL`;
    const capped = capToolResult({ result: text, maxBytes: 2048 }) as string;
    expect(typeof capped).toBe('string');
    expect(bytesOf(capped)).toBeLessThanOrEqual(2048);
    expect(capped.startsWith('HEAD')).toBe(true);
    expect(capped.endsWith('TAIL')).toBe(true);
    const cut = Number(/(\d+) of 10008 bytes cut/.exec(capped)?.[1]);
    const kept = Buffer.byteLength(capped.replace(/\n\[orrery:[^\]]*\]\n/, ''), 'utf8');
    expect(cut + kept).toBe(10_008);
  });

  it('cuts an object as JSON text and stays under the limit despite escaping', () => {
    const result = { lines: Array.from({ length: 2000 }, (_, index) => `"quoted" ${index}\n`) };
    const capped = capToolResult({ result, maxBytes: 4096 }) as string;
    expect(bytesOf(capped)).toBeLessThanOrEqual(4096);
    expect(capped).toContain('tool output truncated by ToolOutputCapPlugin');
  });

  it('never splits a multi-byte character', () => {
    const capped = capToolResult({ result: 'é€😀'.repeat(5000), maxBytes: 2000 }) as string;
    expect(capped).not.toContain('\uFFFD');
    expect(bytesOf(capped)).toBeLessThanOrEqual(2000);
  });
});

describe('ToolOutputCapPlugin', () => {
  it('defaults to 4 MiB and replaces only oversized results', () => {
    const plugin = new ToolOutputCapPlugin();
    expect(plugin.maxToolResultBytes).toBe(4 * 1024 * 1024);
    const base = {
      appName: 'a',
      userId: 'u',
      sessionId: 's',
      invocationId: 'i',
      agentName: 'agent',
      toolName: 't',
      functionCallId: 'c',
      args: {},
    };
    expect(plugin.afterTool({ ...base, result: 'small' })).toBeUndefined();
    const big = plugin.afterTool({ ...base, result: 'x'.repeat(5 * 1024 * 1024) });
    expect(bytesOf(big)).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('rejects a nonsensical limit, naming the option', () => {
    expect(() => new ToolOutputCapPlugin({ maxToolResultBytes: 10 })).toThrow(RunnerConfigError);
    expect(() => new ToolOutputCapPlugin({ maxToolResultBytes: 10 })).toThrow(/maxToolResultBytes/);
  });
});
