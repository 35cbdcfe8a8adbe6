/** One-line renderings of events and contents for `show`, `view`, `run` and `chat`. */
import type { Content, Event, NewEvent, Part } from '../events/types.js';

export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function renderPart(part: Part, max = 100): string {
  if (part.functionCall) {
    return `call ${part.functionCall.name}(${clip(JSON.stringify(part.functionCall.args), max)}) [${part.functionCall.id}]`;
  }
  if (part.functionResponse) {
    const size = JSON.stringify(part.functionResponse.response).length;
    return `result ${part.functionResponse.name} [${part.functionResponse.id}] ${size.toLocaleString('en-US')} B: ${clip(JSON.stringify(part.functionResponse.response), max)}`;
  }
  if (part.inlineData)
    return `[${part.inlineData.mimeType}, ${part.inlineData.data.length} B base64]`;
  if (part.thought) return `(thought) ${clip(part.text ?? '', max)}`;
  return clip(part.text ?? '', max);
}

export function renderContent(content: Content | undefined, max = 100): string {
  if (!content) return '';
  return content.parts.map((part) => renderPart(part, max)).join(' | ');
}

export function time(event: NewEvent): string {
  return new Date(event.timestamp * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

export function renderEventLine(event: Event | NewEvent, max = 100): string {
  const seq = 'seq' in event ? String(event.seq).padStart(5) : '     ';
  const branch = event.branch ? ` @${event.branch}` : '';
  return `${seq}  ${time(event)}  ${event.author}${branch}: ${renderContent(event.content, max)}`;
}
