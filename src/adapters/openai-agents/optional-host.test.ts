import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const source = fileURLToPath(new URL('../..', import.meta.url));

function shippedFiles(folder: string): string[] {
  return readdirSync(join(source, folder), { recursive: true, encoding: 'utf8' })
    .filter(
      (file) =>
        file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('test-helpers'),
    )
    .map((file) => join(source, folder, file));
}

describe('host libraries stay optional', () => {
  it("`import 'orrery'` reaches no adapter", () => {
    const index = readFileSync(join(source, 'index.ts'), 'utf8');
    expect(index).not.toMatch(/adapters\/(openai-agents|langchain)/);
  });

  it('the OpenAI Agents adapter imports @openai/agents for its types only', () => {
    const imports = shippedFiles('adapters/openai-agents').flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(/^import (type )?[^;]*?from '(@openai\/[^']+)'/gms),
      ].map((match) => `${match[1] ?? 'value '}${match[2]}`),
    );
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.every((line) => line.startsWith('type '))).toBe(true);
  });
});
