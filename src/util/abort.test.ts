import { describe, expect, it } from 'vitest';
import { abortableDelay, raceAbort } from './abort.js';

describe('abortableDelay', () => {
  it('resolves after the delay when nothing aborts', async () => {
    await expect(abortableDelay(0, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('rejects with the reason when already aborted, and when aborted while waiting', async () => {
    const reason = new Error('stop');
    await expect(abortableDelay(0, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const waiting = abortableDelay(60_000, controller.signal);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});

describe('raceAbort', () => {
  it('settles as the promise does when the signal never aborts', async () => {
    await expect(raceAbort(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    const failure = new Error('failed');
    await expect(raceAbort(Promise.reject(failure), undefined)).rejects.toBe(failure);
  });

  it('rejects with the reason as soon as the signal aborts, though the work never settles', async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => {});
    const raced = raceAbort(never, controller.signal);
    const reason = new Error('caller left');
    controller.abort(reason);
    await expect(raced).rejects.toBe(reason);
    await expect(raceAbort(never, AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});
