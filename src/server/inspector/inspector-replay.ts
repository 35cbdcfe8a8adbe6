/**
 * The inspector's replay (`POST /inspector/api/replay`): a transcript replayed as `orrery replay
 * FILE --json` replays it (the same import, settings, engine and JSON, from `runtime/replay/`),
 * into a fresh in-memory store that is dropped after. The environment's `ORRERY_COMPACTION_*`
 * settings are not read: the request says everything. `orrery serve` and `orrery inspect` run it
 * in a worker (`worker-replay.ts`); `inspectorReplay` runs it in the server's thread.
 */
import type { EventsSummarizer } from '../../compaction/types.js';
import { ImportError } from '../../importers/errors.js';
import { importTranscripts } from '../../importers/import-transcript.js';
import { requireEvents } from '../../importers/require-events.js';
import { ModelConfigError } from '../../models/errors.js';
import { type PricedModel, replayCost } from '../../runtime/replay/replay-cost.js';
import { replayImportedTranscript } from '../../runtime/replay/replay-imported-transcript.js';
import { replayJson } from '../../runtime/replay/replay-json.js';
import { pricedModel } from '../../runtime/replay/replay-price.js';
import {
  type ReplayCompactionSettings,
  type ReplaySettingNames,
  replayCompactionSettings,
} from '../../runtime/replay/replay-settings.js';
import { ReplaySettingsError } from '../../runtime/replay/replay-settings-error.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { badRequest } from '../problem.js';
import type { ReplayRequest, ReplayResponse } from './api-types.js';
import type { InspectorReplay } from './inspector-deps.js';

/** `summarizer: 'none'`: every window skipped, so the replay shows the uncompacted requests. */
const NO_SUMMARY: EventsSummarizer = { name: 'none', summarize: async () => null };

/** The request's fields, as errors name them. */
const REQUEST_NAMES: ReplaySettingNames = {
  threshold: 'threshold',
  interval: 'interval',
  maxRequestBytes: 'maxRequestBytes',
};

/** The file name a transcript without one is reported under. */
const DEFAULT_TRANSCRIPT_NAME = 'transcript';

function importRequest(request: ReplayRequest, fileName: string) {
  try {
    const results = importTranscripts({ text: request.transcript, fileName, format: 'auto' });
    requireEvents(results, fileName);
    return results;
  } catch (error) {
    if (ImportError.isInstance(error)) {
      throw badRequest(`transcript: ${error.message}`, 'transcript', error);
    }
    throw error;
  }
}

/** The request's settings as `orrery replay` takes its flags (`replayCompactionSettings`). */
function inspectorSettings(
  settings: Omit<ReplayRequest, 'transcript'>,
  summarizer: EventsSummarizer,
): ReplayCompactionSettings {
  try {
    return replayCompactionSettings({
      env: {},
      summarizer,
      threshold: settings.threshold,
      retention: settings.retention,
      interval: settings.interval,
      overlap: settings.overlap,
      maxRequestBytes: settings.maxRequestBytes,
      names: REQUEST_NAMES,
    });
  } catch (error) {
    if (ReplaySettingsError.isInstance(error)) {
      throw badRequest(error.message, error.field, error);
    }
    throw error;
  }
}

/** The request's `price`; a model the catalog does not list is a 400 naming `price`. */
async function inspectorPrice(id: string): Promise<PricedModel> {
  try {
    return await pricedModel(id, 'price');
  } catch (error) {
    if (ModelConfigError.isInstance(error))
      throw badRequest(`price: ${error.message}`, 'price', error);
    throw error;
  }
}

/**
 * Replays one request's transcript; every run of a multi-run file, as the CLI does.
 * `onProgress` hears the events replayed so far, over every run (the replay worker reports it).
 */
export async function replayForInspector(options: {
  request: ReplayRequest;
  signal?: AbortSignal;
  onProgress?: (eventsReplayed: number) => void;
}): Promise<ReplayResponse> {
  const { request, signal, onProgress } = options;
  let replayedBefore = 0;
  const fileName = request.fileName ?? DEFAULT_TRANSCRIPT_NAME;
  const results = importRequest(request, fileName);
  const summarizer = request.summarizer === 'none' ? NO_SUMMARY : new DigestSummarizer();
  // Nothing is summarized with `none`: compaction off, as a 0 threshold without an interval is.
  const { replayConfig } = inspectorSettings(
    request.summarizer === 'none' ? { threshold: 0 } : request,
    summarizer,
  );
  const priced = request.price === undefined ? undefined : await inspectorPrice(request.price);
  const objects: Array<Record<string, unknown>> = [];
  for (const result of results) {
    const service = new InMemorySessionService();
    const report = await replayImportedTranscript({
      result,
      file: fileName,
      service,
      key: { appName: 'orrery', userId: 'local', sessionId: `replay-${crypto.randomUUID()}` },
      config: replayConfig,
      summarizer,
      signal,
      onProgress: onProgress && ((progress) => onProgress(replayedBefore + progress.index)),
    });
    replayedBefore += report.events;
    objects.push({
      file: fileName,
      ...(result.meta.run === undefined ? {} : { run: result.meta.run }),
      ...replayJson(report),
      ...(priced && { cost: replayCost({ report, model: priced }) }),
    });
  }
  return objects.length === 1 ? (objects[0] as Record<string, unknown>) : objects;
}

/** The replay in the server's own thread (a library's; `orrery serve` runs it in a worker). */
export const inspectorReplay: InspectorReplay = replayForInspector;
