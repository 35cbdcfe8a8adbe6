import { describe, expect, it } from 'vitest';
import { importTranscript, importTranscripts, parseImportFormat } from './import-transcript.js';
import { sniffFormat } from './sniff.js';

describe('sniffFormat', () => {
  it('tells each format from its name and shape', () => {
    expect(sniffFormat('{"history":[]}', 'run.traj')).toBe('swe-agent');
    expect(sniffFormat('{"type":"user","message":{"content":"x"}}\n', 'a.jsonl')).toBe(
      'claude-code',
    );
    expect(sniffFormat('[{"role":"user","content":"hi"}]', 'chat.json')).toBe('openai-chat');
    expect(sniffFormat('{"messages":[{"role":"user","content":"hi"}]}', 'c.json')).toBe(
      'openai-chat',
    );
    expect(sniffFormat('[{"task_id":1,"traj":[]}]', 'tau.json')).toBe('openai-chat');
    expect(
      sniffFormat(
        '[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"a","toolName":"b","input":{}}]}]',
        'x.json',
      ),
    ).toBe('ai-sdk');
    expect(sniffFormat('{"id":"s","appName":"a","events":[]}', 'session.json')).toBe('adk');
    expect(sniffFormat('{"history":[]}', 'x.json')).toBe('swe-agent');
    expect(() => sniffFormat('{"foo":1}', 'x.json')).toThrow(/cannot tell the format of x.json/);
    expect(() => sniffFormat('hello', 'x.txt')).toThrow(/pass --format/);
  });

  it('imports every run unless one is picked', () => {
    const text = JSON.stringify([
      { task_id: 1, traj: [{ role: 'user', content: 'a' }] },
      { task_id: 2, traj: [{ role: 'user', content: 'b' }] },
    ]);
    expect(importTranscripts({ text })).toHaveLength(2);
    expect(importTranscripts({ text, run: 1 })[0]?.meta.run).toBe(1);
    expect(() => importTranscript({ text, fileName: 'tau.json' })).toThrow(/holds 2 runs/);
    expect(() => parseImportFormat('csv')).toThrow(/unknown format "csv"/);
  });
});
