/**
 * Redaction speed on inputs that made the old per-class regexes quadratic (one long hex or
 * base64 token, digit runs) and on ordinary text (log lines, minified JS): time per MB at
 * 100 kB, 1 MiB and 4 MiB. A flat time per MB (ratio 4 MiB / 100 kB near 1) is linear time.
 */
import { redactText } from '../src/redaction/index.js';
import { median } from './workload.js';

const sizes = [100_000, 1 << 20, 4 << 20];

/** A small deterministic generator (mulberry32): the same input every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function fill(size: number, piece: (next: () => number) => string): string {
  const next = random(42);
  const pieces: string[] = [];
  let length = 0;
  while (length < size) {
    const text = piece(next);
    pieces.push(text);
    length += text.length;
  }
  return pieces.join('').slice(0, size);
}

function pick(next: () => number, alphabet: string, length: number): string {
  let text = '';
  for (let index = 0; index < length; index++) {
    text += alphabet[Math.floor(next() * alphabet.length)];
  }
  return text;
}

const HEX = '0123456789abcdef';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export const inputs: Record<string, (size: number) => string> = {
  hex: (size) => fill(size, (next) => pick(next, HEX, 4096)),
  base64: (size) => fill(size, (next) => pick(next, BASE64, 4096)),
  'log lines': (size) =>
    fill(size, (next) => {
      const id = pick(next, HEX, 12);
      const user = `user${Math.floor(next() * 10_000)}@example.com`;
      const ip = `10.0.${Math.floor(next() * 255)}.${Math.floor(next() * 255)}`;
      return `2024-01-15T10:30:${String(Math.floor(next() * 60)).padStart(2, '0')}.123Z INFO [worker-3] request id=${id} user=${user} from ${ip} GET /api/v1/orders/${Math.floor(next() * 1e6)} took ${Math.floor(next() * 900)}ms status=200\n`;
    }),
  'minified JS': (size) =>
    fill(size, (next) => {
      const name = pick(next, 'abcdefghijklmnopqrstuvwxyz', 2);
      return `function ${name}(e,t){var n=e.length,r=t||{};for(var i=0;i<n;i++)r[e[i]]=i*${Math.floor(next() * 1000)};return r.token?r:{a:1,b:"${name}",c:[1,2,3]}}var ${name}x=${name}([],{});`;
    }),
  'digits and spaces': (size) =>
    fill(size, (next) => `${pick(next, '0123456789', 1 + Math.floor(next() * 12))} `),
};

export async function run(): Promise<void> {
  console.log(
    'Redaction (`redactText`, default rules), ms per MB (median of 3), ratio 4 MiB / 100 kB:',
  );
  console.log('| input | 100 kB | 1 MiB | 4 MiB | ratio |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, make] of Object.entries(inputs)) {
    const perMb: number[] = [];
    for (const size of sizes) {
      const text = make(size);
      const times: number[] = [];
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        redactText(text);
        times.push(performance.now() - started);
      }
      perMb.push(median(times) / (size / (1 << 20)));
    }
    const [small = 0, middle = 0, large = 0] = perMb;
    console.log(
      `| ${name} | ${small.toFixed(1)} | ${middle.toFixed(1)} | ${large.toFixed(1)} | ${(large / small).toFixed(2)} |`,
    );
  }
}
