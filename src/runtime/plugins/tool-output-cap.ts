import { RunnerConfigError } from '../errors.js';
import type { AfterToolContext, Plugin } from './plugin.js';

export interface ToolOutputCapPluginOptions {
  /** Largest serialized (UTF-8 JSON) tool result kept; default 4 MiB. */
  maxToolResultBytes?: number;
}

const defaultMaxBytes = 4 * 1024 * 1024;
/** Room kept for the marker and JSON escaping slack on the first attempt. */
const markerReserve = 256;

/**
 * Caps each tool result's serialized size before it is stored. The head (three quarters) and
 * tail (one quarter) of the output are kept around a marker that says how many bytes were cut.
 * A cap only defers overflow (the history still grows); compaction is what bounds requests.
 */
export class ToolOutputCapPlugin implements Plugin {
  readonly name = 'tool_output_cap';
  readonly maxToolResultBytes: number;

  constructor(options: ToolOutputCapPluginOptions = {}) {
    const max = options.maxToolResultBytes ?? defaultMaxBytes;
    if (!Number.isInteger(max) || max < 1024) {
      throw new RunnerConfigError({
        field: 'maxToolResultBytes',
        value: max,
        message: 'must be an integer of at least 1024 bytes',
      });
    }
    this.maxToolResultBytes = max;
  }

  afterTool(context: AfterToolContext): unknown {
    return capToolResult({ result: context.result, maxBytes: this.maxToolResultBytes });
  }
}

function serializedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** Cuts a string to at most `bytes` UTF-8 bytes without splitting a character. */
function headBytes(text: string, bytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= bytes) return text;
  return buffer
    .subarray(0, Math.max(0, bytes))
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

function tailBytes(text: string, bytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= bytes) return text;
  return buffer
    .subarray(buffer.length - Math.max(0, bytes))
    .toString('utf8')
    .replace(/^\uFFFD+/, '');
}

/**
 * `undefined` when the result fits (keep it); otherwise the capped result: a string result is
 * cut as text, any other value as its JSON text.
 */
export function capToolResult(options: { result: unknown; maxBytes: number }): unknown {
  const { result, maxBytes } = options;
  const totalBytes = serializedBytes(result);
  if (totalBytes <= maxBytes) return undefined;
  const text = typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
  const textBytes = Buffer.byteLength(text, 'utf8');
  let budget = maxBytes - markerReserve;
  // JSON escaping can make the kept text larger than its raw bytes: shrink until it fits.
  for (let attempt = 0; attempt < 8 && budget > 0; attempt++) {
    const headBudget = Math.floor((budget * 3) / 4);
    const head = headBytes(text, headBudget);
    const tail = tailBytes(text, budget - headBudget);
    const cut = textBytes - Buffer.byteLength(head, 'utf8') - Buffer.byteLength(tail, 'utf8');
    const capped = `${head}\n[orrery: tool output truncated by ToolOutputCapPlugin: ${cut} of ${textBytes} bytes cut, limit ${maxBytes} bytes]\n${tail}`;
    const size = serializedBytes(capped);
    if (size <= maxBytes) return capped;
    budget = Math.floor((budget * maxBytes) / size) - markerReserve;
  }
  return `[orrery: tool output truncated by ToolOutputCapPlugin: all ${textBytes} bytes cut, limit ${maxBytes} bytes]`;
}
