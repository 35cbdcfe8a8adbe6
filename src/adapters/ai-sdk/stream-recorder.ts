/**
 * A streamed answer as it happens: the parts a provider streams are passed on unchanged and
 * gathered into the content a generate call would have returned (texts and reasoning joined by
 * id, complete tool calls, files) with the usage of the `finish` part.
 */
import type {
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';

export interface RecordedStream {
  content: LanguageModelV3Content[];
  usage?: LanguageModelV3Usage;
  /** The stream carried an `error` part or failed. */
  failed: boolean;
}

export class StreamRecorder {
  private readonly content: LanguageModelV3Content[] = [];
  private readonly open = new Map<string, { index: number; kind: 'text' | 'reasoning' }>();
  private usage?: LanguageModelV3Usage;
  private failed = false;

  /** Notes one part. */
  add(part: LanguageModelV3StreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const kind = part.type === 'text-start' ? 'text' : 'reasoning';
        this.open.set(`${kind}:${part.id}`, { index: this.content.length, kind });
        this.content.push({ type: kind, text: '', ...metadata(part.providerMetadata) });
        break;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
        const slot = this.open.get(`${kind}:${part.id}`);
        const item = slot ? this.content[slot.index] : undefined;
        if (item && (item.type === 'text' || item.type === 'reasoning')) {
          item.text += part.delta;
          if (part.providerMetadata) item.providerMetadata = part.providerMetadata;
        } else {
          this.content.push({ type: kind, text: part.delta, ...metadata(part.providerMetadata) });
        }
        break;
      }
      case 'text-end':
      case 'reasoning-end': {
        const kind = part.type === 'text-end' ? 'text' : 'reasoning';
        const slot = this.open.get(`${kind}:${part.id}`);
        const item = slot ? this.content[slot.index] : undefined;
        // The signature of a thinking block often arrives on its end part.
        if (item && part.providerMetadata && (item.type === 'text' || item.type === 'reasoning')) {
          item.providerMetadata = part.providerMetadata;
        }
        this.open.delete(`${kind}:${part.id}`);
        break;
      }
      case 'tool-call':
      case 'file':
        this.content.push(part);
        break;
      case 'finish':
        this.usage = part.usage;
        break;
      case 'error':
        this.failed = true;
        break;
      default:
        break;
    }
  }

  fail(): void {
    this.failed = true;
  }

  result(): RecordedStream {
    return { content: this.content, usage: this.usage, failed: this.failed };
  }
}

function metadata(value: SharedV3ProviderMetadata | undefined): {
  providerMetadata?: SharedV3ProviderMetadata;
} {
  return value === undefined ? {} : { providerMetadata: value };
}
