/**
 * Replay progress on stderr. On a terminal (without `--json`) one line drawn in place every ten
 * events; with `--progress`, for pipes, logs and `--json` runs where long replays happen, a
 * plain line at each tenth of a transcript's events (by count, not by clock, so the same run
 * prints the same lines).
 */
import type { ReplayProgress } from '../runtime/replay/replay.js';
import { groupDigits } from '../util/group-digits.js';
import { plural } from '../util/plural.js';
import type { CliIo } from './io.js';

/** Lines per transcript with `--progress`: one at each tenth of its events. */
export const PROGRESS_STEPS = 10;

export interface ProgressOptions {
  io: CliIo;
  /** `--progress`: plain lines, whatever stderr is. */
  lines: boolean;
  /** `--json`: no line drawn in place (the output may be a terminal's too). */
  json: boolean;
}

export interface TranscriptProgress {
  /** The replay's `onProgress`, or `undefined` when nothing is shown. */
  onProgress?: (progress: ReplayProgress) => void;
  /** Clears a line drawn in place; call when the transcript is done. */
  done: () => void;
}

/** Progress for one transcript (`position` of `count`), labelled `label`. */
export function transcriptProgress(
  options: ProgressOptions & { label: string; position: number; count: number },
): TranscriptProgress {
  const { io, label } = options;
  const prefix = options.count > 1 ? `[${options.position}/${options.count}] ` : '';
  const describe = ({ index, total, compactions }: ReplayProgress) =>
    `${prefix}replaying ${label}: ${groupDigits(index)}/${plural(total, 'event')}, ${plural(compactions, 'compaction')}`;
  if (options.lines) {
    let printed = 0;
    return {
      onProgress: (progress) => {
        // The step this event reaches: 1..PROGRESS_STEPS (the last event is always the last step).
        const step = Math.floor((progress.index * PROGRESS_STEPS) / Math.max(1, progress.total));
        if (step <= printed) return;
        printed = step;
        const percent = Math.floor((progress.index * 100) / Math.max(1, progress.total));
        io.stderr(`${describe(progress)} (${percent}%)\n`);
      },
      done: () => {},
    };
  }
  if (!io.stderrIsTty || options.json) return { done: () => {} };
  return {
    onProgress: (progress) => {
      if (progress.index % 10 === 0 || progress.index === progress.total) {
        io.stderr(`\r\x1b[2K${describe(progress)}`);
      }
    },
    done: () => io.stderr('\r\x1b[2K'),
  };
}
