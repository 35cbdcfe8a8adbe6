/**
 * The triage sweep (docs/workflows.md#the-triage-sweep-example): a root that runs specialists in
 * parallel over a large incident, each reading many big tool pages, then a lead that merges
 * their findings. Offline: every model is a `ScriptedModel`, every page is generated, and the
 * summarizer is a deterministic digest, so the run (and its checks) are the same every time.
 * In your own project, import from 'orrery' and 'orrery/testing' instead of '../../src/...'.
 */
import {
  type Agent,
  type EventsCompactionConfig,
  type EventsSummarizer,
  FunctionTool,
  getText,
  LlmAgent,
  type ModelResponse,
  ParallelAgent,
  SequentialAgent,
} from '../../src/index.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../src/testing/index.js';

export interface TriageSweepOptions {
  /** Specialist names (each its own branch: `sweep.<name>`). Default network, database, deploys. */
  specialists?: string[];
  /** Pages each specialist reads. Default 10. */
  pages?: number;
  /** Bytes of each page. Default 30,000. */
  pageBytes?: number;
  /**
   * Called before each specialist model step answers (tests hold a step here with a deferred
   * promise to show the branches run concurrently). Default: answer at once.
   */
  beforeStep?: (options: { specialist: string; step: number }) => Promise<void>;
}

export interface TriageSweep {
  /** The workflow root: `SequentialAgent(triage) [ ParallelAgent(sweep) [...], lead ]`. */
  agent: Agent;
  /** Each specialist's model, by name, and the lead's. */
  specialistModels: Map<string, ScriptedModel>;
  leadModel: ScriptedModel;
  /** The final answer each specialist gives, by name (the lead must read them verbatim). */
  finalAnswers: Map<string, string>;
  /** A marker on every line of a specialist's pages: no sibling may ever see it. */
  pageMarker(specialist: string): string;
  /** The issue's check: a 12k-token threshold, a 120 kB ceiling, the last 4 events kept. */
  compaction: EventsCompactionConfig;
  summarizer: EventsSummarizer;
}

export const SWEEP_THRESHOLD_TOKENS = 12_000;
export const SWEEP_MAX_REQUEST_BYTES = 120_000;

/** One generated page of incident evidence, `bytes` long, every line marked. */
export function incidentPage(options: { specialist: string; page: number; bytes: number }): string {
  const { specialist, page, bytes } = options;
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < bytes; line++) {
    const text = `${pageMarkerOf(specialist)} p${page} l${line}: status=degraded latency_ms=${(page * 37 + line * 11) % 900} host=${specialist}-${line % 7}`;
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

function pageMarkerOf(specialist: string): string {
  return `EVIDENCE<${specialist}>`;
}

/** The names of the agents whose events a summary covers, so a test can tell branches apart. */
export function digestSummarizer(): EventsSummarizer {
  return {
    name: 'sweep-digest',
    async summarize({ events, previousSummary }) {
      const authors = [...new Set(events.map((event) => event.author))].sort();
      const pages = events.flatMap((event) =>
        (event.content?.parts ?? [])
          .filter((part) => part.functionCall?.name === 'read_page')
          .map((part) => String(part.functionCall?.args?.page)),
      );
      const earlier = previousSummary ? getText(previousSummary).slice(0, 400) : '';
      const text = `Digest of [${authors.join(', ')}]: ${events.length} events, pages read ${pages.join(',') || 'none'}.${earlier ? ` Earlier: ${earlier}` : ''}`;
      return { content: { role: 'model', parts: [{ text: text.slice(0, 1200) }] } };
    },
  };
}

function specialistScript(options: {
  specialist: string;
  pages: number;
  finalAnswer: string;
  beforeStep?: TriageSweepOptions['beforeStep'];
}): ScriptedModel {
  const { specialist, pages, finalAnswer, beforeStep } = options;
  const steps = Array.from({ length: pages + 1 }, (_unused, step) => async () => {
    await beforeStep?.({ specialist, step });
    const response: ModelResponse =
      step < pages
        ? toolCallResponse([
            { id: `${specialist}-read-${step + 1}`, name: 'read_page', args: { page: step + 1 } },
          ])
        : textResponse(finalAnswer);
    return response;
  });
  return new ScriptedModel({ modelId: `scripted-${specialist}`, script: steps });
}

export function createTriageSweep(options: TriageSweepOptions = {}): TriageSweep {
  const specialists = options.specialists ?? ['network', 'database', 'deploys'];
  const pages = options.pages ?? 10;
  const pageBytes = options.pageBytes ?? 30_000;
  const specialistModels = new Map<string, ScriptedModel>();
  const finalAnswers = new Map<string, string>();
  const agents = specialists.map((specialist) => {
    const finalAnswer = `FINDING(${specialist}): ${specialist} read ${pages} pages; root cause candidate: ${specialist} saturation at 14:02 UTC.`;
    finalAnswers.set(specialist, finalAnswer);
    const model = specialistScript({
      specialist,
      pages,
      finalAnswer,
      beforeStep: options.beforeStep,
    });
    specialistModels.set(specialist, model);
    const readPage = new FunctionTool({
      name: 'read_page',
      description: `Read one page of the ${specialist} evidence for the incident.`,
      parameters: {
        type: 'object',
        properties: { page: { type: 'integer' } },
        required: ['page'],
      },
      execute: async (args) => ({
        page: (args as { page: number }).page,
        text: incidentPage({ specialist, page: (args as { page: number }).page, bytes: pageBytes }),
      }),
    });
    return new LlmAgent({
      name: specialist,
      model,
      instruction: `You are the ${specialist} specialist. Read the evidence page by page, then report one finding.`,
      tools: [readPage],
    });
  });
  const leadModel = new ScriptedModel({
    modelId: 'scripted-lead',
    script: [
      (request) =>
        textResponse(
          `INCIDENT REPORT from ${request.contents.length} contents: ${[...finalAnswers.keys()].join(', ')} agree on saturation at 14:02 UTC.`,
        ),
    ],
  });
  const lead = new LlmAgent({
    name: 'lead',
    model: leadModel,
    instruction: "Merge the specialists' findings into one incident report.",
  });
  const agent = new SequentialAgent({
    name: 'triage',
    subAgents: [new ParallelAgent({ name: 'sweep', subAgents: agents }), lead],
  });
  return {
    agent,
    specialistModels,
    leadModel,
    finalAnswers,
    pageMarker: pageMarkerOf,
    compaction: {
      tokenThreshold: SWEEP_THRESHOLD_TOKENS,
      eventRetentionSize: 4,
      maxRequestBytes: SWEEP_MAX_REQUEST_BYTES,
    },
    summarizer: digestSummarizer(),
  };
}
