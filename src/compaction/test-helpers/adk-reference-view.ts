/**
 * A faithful re-implementation, for tests, of what ADK for Python sends the model from a session
 * (`_get_contents` in `src/google/adk/flows/llm_flows/contents.py`): rewinds first (a backward
 * scan), then events without visible content dropped (`_contains_empty_content`; compaction
 * events kept), then `_process_compaction_events` on timestamps: a summary is subsumed by one
 * whose range contains it (a wider one, or the same range written later); each kept summary is
 * materialized at its end timestamp; raw events inside a kept range are dropped; all sorted by
 * (timestamp, position). It reads ADK's raw JSON (snake or camel case, float-second timestamps)
 * and shares no code with orrery.
 */

export type AdkViewItem = { kind: 'summary'; text: string } | { kind: 'event'; id: string };

type Json = Record<string, unknown>;

function field(object: unknown, snake: string): unknown {
  if (object === null || typeof object !== 'object') return undefined;
  const record = object as Json;
  const camel = snake.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return record[snake] ?? record[camel] ?? undefined;
}

function compactionOf(event: Json): Json | undefined {
  const compaction = field(field(event, 'actions'), 'compaction');
  return compaction && typeof compaction === 'object' ? (compaction as Json) : undefined;
}

/** `_is_part_invisible`: no content of any kind, or a thought that is not a call/response. */
function isPartInvisible(part: Json): boolean {
  if (field(part, 'function_call') || field(part, 'function_response')) return false;
  const visible = [
    'text',
    'inline_data',
    'file_data',
    'executable_code',
    'code_execution_result',
  ].some((name) => Boolean(field(part, name)));
  return Boolean(field(part, 'thought')) || !visible;
}

function containsEmptyContent(event: Json): boolean {
  if (compactionOf(event)) return false;
  const content = field(event, 'content') as Json | undefined;
  const parts = field(content, 'parts') as Json[] | undefined;
  return !content || !field(content, 'role') || !parts?.length || parts.every(isPartInvisible);
}

function applyRewinds(events: Json[]): Json[] {
  const kept: Json[] = [];
  let index = events.length - 1;
  while (index >= 0) {
    const event = events[index]!;
    const target = field(field(event, 'actions'), 'rewind_before_invocation_id');
    if (target) {
      for (let candidate = 0; candidate < index; candidate++) {
        if (field(events[candidate], 'invocation_id') === target) {
          index = candidate;
          break;
        }
      }
    } else {
      kept.push(event);
    }
    index--;
  }
  return kept.reverse();
}

function textOf(content: unknown): string {
  const parts = (field(content, 'parts') as Json[] | undefined) ?? [];
  return parts.map((part) => String(field(part, 'text') ?? '')).join('');
}

/** What ADK for Python would send, summaries and raw events, in order. */
export function adkReferenceView(session: { events: Json[] }): AdkViewItem[] {
  const events = applyRewinds(session.events).filter((event) => !containsEmptyContent(event));
  const infos: Array<{ index: number; start: number; end: number }> = [];
  events.forEach((event, index) => {
    const compaction = compactionOf(event);
    if (!compaction) return;
    const start = field(compaction, 'start_timestamp');
    const end = field(compaction, 'end_timestamp');
    if (start == null || end == null || field(compaction, 'compacted_content') == null) return;
    infos.push({ index, start: start as number, end: end as number });
  });
  const subsumed = new Set<number>();
  for (const info of infos) {
    for (const other of infos) {
      if (other.index === info.index) continue;
      if (other.start <= info.start && other.end >= info.end) {
        if (other.start < info.start || other.end > info.end || other.index > info.index) {
          subsumed.add(info.index);
          break;
        }
      }
    }
  }
  const ranges: Array<[number, number]> = [];
  const items: Array<{ timestamp: number; index: number; item: AdkViewItem }> = [];
  for (const info of infos) {
    if (subsumed.has(info.index)) continue;
    ranges.push([info.start, info.end]);
    const content = field(compactionOf(events[info.index]!), 'compacted_content');
    items.push({
      timestamp: info.end,
      index: info.index,
      item: { kind: 'summary', text: textOf(content) },
    });
  }
  events.forEach((event, index) => {
    if (compactionOf(event)) return;
    const timestamp = field(event, 'timestamp') as number;
    if (ranges.some(([start, end]) => start <= timestamp && timestamp <= end)) return;
    items.push({ timestamp, index, item: { kind: 'event', id: String(field(event, 'id')) } });
  });
  items.sort((left, right) => left.timestamp - right.timestamp || left.index - right.index);
  return items.map(({ item }) => item);
}
