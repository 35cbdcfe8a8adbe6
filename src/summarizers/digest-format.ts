/**
 * The digest's text form: a header, `## Section` headings and `- item` bullets whose extra lines
 * are indented by two spaces. The form parses back losslessly, so the next digest can carry the
 * previous one's facts forward.
 */

export const DIGEST_HEADER = '# Conversation digest';

export const DIGEST_SECTIONS = [
  { key: 'userRequests', title: 'User requests' },
  { key: 'toolCalls', title: 'Tool calls' },
  { key: 'errors', title: 'Errors' },
  { key: 'openCalls', title: 'Calls without a response' },
  { key: 'identifiers', title: 'Paths and identifiers' },
  { key: 'agentAnswers', title: 'Agent answers' },
  { key: 'lastResults', title: 'Last results' },
  { key: 'earlierSummary', title: 'Earlier summary' },
] as const;

export type DigestSectionKey = (typeof DIGEST_SECTIONS)[number]['key'];

/** Items of each section, oldest first. */
export type DigestSections = Record<DigestSectionKey, string[]>;

export function emptySections(): DigestSections {
  return {
    userRequests: [],
    toolCalls: [],
    errors: [],
    openCalls: [],
    identifiers: [],
    agentAnswers: [],
    lastResults: [],
    earlierSummary: [],
  };
}

function formatItem(item: string): string {
  return `- ${item.split('\n').join('\n  ')}`;
}

/** `formatItem(item).length`: `- `, the item, and two spaces after each of its newlines. */
export function formattedItemLength(item: string): number {
  let newlines = 0;
  for (let index = item.indexOf('\n'); index !== -1; index = item.indexOf('\n', index + 1)) {
    newlines++;
  }
  return 2 + item.length + 2 * newlines;
}

function coverageLine(coveredThroughSeq: number | undefined): string | undefined {
  return coveredThroughSeq !== undefined && coveredThroughSeq > 0
    ? `Covers seq 1-${coveredThroughSeq}; [seq N]: recall it verbatim.`
    : undefined;
}

/** A section's size as `formatDigest` lays it out: its items and their formatted length. */
export interface SectionLength {
  count: number;
  /** The sum of `formattedItemLength` over its items. */
  itemsLength: number;
}

/**
 * `formatDigest(sections, options).length` from each section's `SectionLength`, without building
 * the text: the size ceiling drops items one at a time and measures after each.
 */
export function formattedDigestLength(
  sections: Record<DigestSectionKey, SectionLength>,
  options: { coveredThroughSeq?: number } = {},
): number {
  let length = DIGEST_HEADER.length;
  let lines = 1;
  const coverage = coverageLine(options.coveredThroughSeq);
  if (coverage !== undefined) {
    length += coverage.length;
    lines++;
  }
  for (const { key, title } of DIGEST_SECTIONS) {
    const section = sections[key];
    if (section.count === 0) continue;
    // An empty line, `## title`, then one line per item.
    length += 3 + title.length + section.itemsLength;
    lines += 2 + section.count;
  }
  // Lines are joined by newlines.
  return length + lines - 1;
}

/**
 * `coveredThroughSeq`: the line under the header saying which events the digest covers (rolling:
 * from seq 1), so the agent knows what it can recall. Parsing skips it.
 */
export function formatDigest(
  sections: DigestSections,
  options: { coveredThroughSeq?: number } = {},
): string {
  const lines = [DIGEST_HEADER];
  const coverage = coverageLine(options.coveredThroughSeq);
  if (coverage !== undefined) lines.push(coverage);
  for (const { key, title } of DIGEST_SECTIONS) {
    const items = sections[key];
    if (items.length === 0) continue;
    lines.push('', `## ${title}`);
    for (const item of items) lines.push(formatItem(item));
  }
  return lines.join('\n');
}

/**
 * The sections of a digest, or `null` when `text` is not one (e.g. a model's summary: the
 * caller keeps that whole as the earlier summary).
 */
export function parseDigest(text: string): DigestSections | null {
  const lines = text.split('\n');
  if (lines[0]?.trim() !== DIGEST_HEADER) return null;
  const sections = emptySections();
  let current: string[] | undefined;
  for (const line of lines.slice(1)) {
    if (line.startsWith('## ')) {
      const title = line.slice(3).trim();
      const section = DIGEST_SECTIONS.find((candidate) => candidate.title === title);
      current = section ? sections[section.key] : undefined;
    } else if (current && line.startsWith('- ')) {
      current.push(line.slice(2));
    } else if (current && line.startsWith('  ') && current.length > 0) {
      current[current.length - 1] += `\n${line.slice(2)}`;
    }
  }
  return sections;
}
