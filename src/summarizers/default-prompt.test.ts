import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SUMMARY_PROMPT,
  fillPromptTemplate,
  NO_PREVIOUS_SUMMARY,
} from './default-prompt.js';

describe('DEFAULT_SUMMARY_PROMPT', () => {
  it('holds both placeholders and asks for every section', () => {
    expect(DEFAULT_SUMMARY_PROMPT).toContain('{conversation_history}');
    expect(DEFAULT_SUMMARY_PROMPT).toContain('{previous_summary}');
    for (const section of [
      'User goal',
      'Latest user request',
      'Conversation language',
      'Decisions',
      'Facts obtained',
      'Tools used',
      'Errors',
      'Current state',
      'Open tasks and next steps',
    ]) {
      expect(DEFAULT_SUMMARY_PROMPT).toContain(`## ${section}`);
    }
    expect(DEFAULT_SUMMARY_PROMPT).toMatch(/VERBATIM/);
    expect(DEFAULT_SUMMARY_PROMPT).toMatch(/Keep everything from the previous summary/);
  });
});

describe('fillPromptTemplate', () => {
  it('fills both placeholders, and says when there is no previous summary', () => {
    const template = 'P:{previous_summary}|H:{conversation_history}';
    expect(fillPromptTemplate({ template, conversationHistory: 'h', previousSummary: 's' })).toBe(
      'P:s|H:h',
    );
    expect(fillPromptTemplate({ template, conversationHistory: 'h' })).toBe(
      `P:${NO_PREVIOUS_SUMMARY}|H:h`,
    );
  });

  it('never expands placeholder-like text or replacement patterns inside the history', () => {
    const template = 'P:{previous_summary}|H:{conversation_history}';
    const history = 'user typed {previous_summary} and $& and $1';
    expect(
      fillPromptTemplate({ template, conversationHistory: history, previousSummary: 'S' }),
    ).toBe(`P:S|H:${history}`);
  });

  it('keeps the previous summary when the template has no place for it', () => {
    const filled = fillPromptTemplate({
      template: 'Summarize: {conversation_history}',
      conversationHistory: 'new stuff',
      previousSummary: 'ticket INC-1',
    });
    expect(filled).toContain('ticket INC-1');
    expect(filled.indexOf('ticket INC-1')).toBeLessThan(filled.indexOf('new stuff'));
  });
});
