/** An elision rule event (docs/architecture.md#elision-the-cheap-tier), for the adapters' view tests. */
import type { Event } from '../../../events/types.js';

/** The rule at `seq`, eliding tool outputs over 100 bytes through `throughSeq`. */
export function elisionRuleEvent(options: { seq: number; throughSeq: number }): Event {
  return {
    id: 'rule',
    invocationId: 'inv-rule',
    author: 'user',
    timestamp: options.seq,
    seq: options.seq,
    actions: {
      elision: {
        throughSeq: options.throughSeq,
        minOutputBytes: 100,
        trigger: 'token_threshold',
        tokensBefore: 2000,
        tokensAfter: 100,
      },
    },
  };
}
