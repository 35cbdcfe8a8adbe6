import type { ReplayReport } from './replay.js';

/**
 * One transcript's replay as JSON: what `orrery replay --json` prints for it and the inspector's
 * replay route answers. `requests` (one per model call) and each compaction's `beforeCall` are
 * what the inspector's replay chart draws.
 */
export function replayJson(report: ReplayReport) {
  return {
    events: report.events,
    modelCalls: report.modelCalls,
    compactions: report.compactions.map(
      ({
        trigger,
        startSeq,
        endSeq,
        tokensBefore,
        tokensAfter,
        beforeCall,
        summarizer,
        fallback,
        branch,
        costChoice,
      }) => ({
        trigger,
        startSeq,
        endSeq,
        tokensBefore,
        tokensAfter,
        beforeCall,
        summarizer,
        ...(fallback ? { fallback } : {}),
        ...(branch ? { branch } : {}),
        ...(costChoice ? { costChoice } : {}),
      }),
    ),
    // Present only when the elision tier recorded a rule: output with it off stays unchanged.
    ...(report.elisions
      ? {
          elisions: report.elisions.map(
            ({ trigger, throughSeq, elidedOutputs, tokensBefore, tokensAfter, beforeCall }) => ({
              trigger,
              throughSeq,
              elidedOutputs,
              tokensBefore,
              tokensAfter,
              beforeCall,
            }),
          ),
        }
      : {}),
    maxViewTokens: report.maxViewTokens,
    maxViewBytes: report.maxViewBytes,
    orphans: report.orphans,
    lossless: report.lossless,
    tokens: report.tokens,
    requests: report.requests.map(({ withCompaction, withoutCompaction, bytes }) => ({
      withCompaction,
      withoutCompaction,
      bytes,
    })),
    // Present only for a transcript with workflow branches (docs/workflows.md#adk-sessions-and-replay).
    ...(report.branches ? { branches: report.branches } : {}),
  };
}
