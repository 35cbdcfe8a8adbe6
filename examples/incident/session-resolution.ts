import type { SessionContext } from './session-context.js';
import { MODEL } from './transcript-writer.js';

/**
 * The second half of the incident: a sub-agent audits the migrations (a sidechain), the fix is
 * confirmed on staging, applied in prod and written up.
 */
export function resolve(context: SessionContext): void {
  const { random, transcript, tools } = context;
  const { pick, between, hex } = random;
  // A sub-agent (Claude Code's Task tool) searches the migrations; its records are a sidechain.
  {
    const taskId = `toolu_01${hex(22)}`;
    transcript.write({
      type: 'assistant',
      message: {
        id: `msg_01${hex(22)}`,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [
          {
            type: 'tool_use',
            id: taskId,
            name: 'Task',
            input: {
              description: 'Audit index migrations',
              prompt:
                'List every migration since May that creates or drops an index on order_items, with its release tag.',
            },
          },
        ],
        stop_reason: 'tool_use',
      },
      timestamp: transcript.tick(1000, 3000),
    });
    transcript.sidechain = true;
    transcript.write({
      type: 'user',
      message: {
        role: 'user',
        content:
          'List every migration since May that creates or drops an index on order_items, with its release tag.',
      },
      timestamp: transcript.tick(100, 500),
    });
    for (let index = 0; index < 8; index++) {
      transcript.step(index === 0 ? 'Searching the migrations folder.' : undefined, [
        {
          name: 'Grep',
          input: {
            pattern: 'INDEX.*order_items',
            path: `migrations/2025${String(index + 5).padStart(2, '0')}*`,
          },
          output: Array.from(
            { length: between(6, 14) },
            () =>
              `migrations/2025${String(index + 5).padStart(2, '0')}${between(10, 28)}_${pick(['add', 'drop'])}_order_items_${pick(['sku', 'status', 'cart_id', 'order_id'])}_idx.sql:${between(1, 9)}: ${pick(['CREATE INDEX CONCURRENTLY', 'DROP INDEX CONCURRENTLY'])} order_items_${hex(6)}_idx`,
          ).join('\n'),
        },
      ]);
    }
    transcript.answer(
      'Only one migration drops an index on order_items since May: 20250610_drop_legacy_cart_index.sql (v2.14.0) drops order_items_cart_id_idx. No migration creates a replacement on cart_id.',
    );
    transcript.sidechain = false;
    transcript.write({
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: taskId,
            content: [
              {
                type: 'text',
                text: 'Only one migration drops an index on order_items since May: 20250610_drop_legacy_cart_index.sql (v2.14.0) drops order_items_cart_id_idx. No migration creates a replacement on cart_id.',
              },
            ],
          },
        ],
      },
      timestamp: transcript.tick(500, 2000),
    });
  }
  transcript.answer(
    'Root cause candidate: v2.14.0 (commit 4e7a1c9d2b, CHK-2291) dropped order_items_cart_id_idx on the assumption that order_items_status_idx supersedes it, and changed the lookup to filter by cart_id AND status. status has 3 distinct values, so the planner scans the table: every checkout pays ~1.8 s.',
  );

  transcript.user(
    'Can we confirm it is the missing index on order_items(cart_id)? Staging has the same data shape.',
  );
  for (let index = 0; index < 12; index++) {
    transcript.step(
      index === 0
        ? 'Comparing plans on staging before and after a test index, several carts each.'
        : undefined,
      [
        {
          name: 'Bash',
          input: {
            command: `psql -h orders-staging -c "EXPLAIN ANALYZE SELECT ci.* FROM order_items ci WHERE ci.cart_id = '${hex(6)}' AND ci.status = 'open'"`,
          },
          output: tools.explain(false),
        },
      ],
    );
  }
  transcript.step('Creating the index concurrently on staging only.', [
    {
      name: 'Bash',
      input: {
        command:
          'psql -h orders-staging -c "CREATE INDEX CONCURRENTLY order_items_cart_id_status_idx ON order_items (cart_id, status)"',
      },
      output: 'CREATE INDEX\nTime: 412883.120 ms (06:52.883)',
    },
  ]);
  for (let index = 0; index < 12; index++) {
    transcript.step(undefined, [
      {
        name: 'Bash',
        input: {
          command: `psql -h orders-staging -c "EXPLAIN ANALYZE SELECT ci.* FROM order_items ci WHERE ci.cart_id = '${hex(6)}' AND ci.status = 'open'"`,
        },
        output: tools.explain(true),
      },
    ]);
  }
  transcript.step('Running the checkout load test against staging.', [
    {
      name: 'Bash',
      input: { command: 'k6 run loadtests/checkout.js --env TARGET=staging --duration 5m' },
      output: Array.from(
        { length: 70 },
        (_, index) =>
          `running (${String(Math.floor(index / 14)).padStart(2, '0')}m${String((index * 4) % 60).padStart(2, '0')}s), ${between(40, 50)}/50 VUs, ${between(1000, 9000)} complete iterations   http_req_duration p(95)=${between(110, 160)}ms p(99)=${between(170, 210)}ms`,
      ).join('\n'),
    },
  ]);
  transcript.answer(
    'Confirmed on staging: with order_items_cart_id_status_idx (cart_id, status) the lookup is an index scan, 0.08 ms instead of 1844 ms, and the checkout load test is back to p99 170-210 ms. Proposed prod mitigation: CREATE INDEX CONCURRENTLY order_items_cart_id_status_idx ON order_items (cart_id, status) (about 7 minutes on 14M rows, no table lock).',
  );

  transcript.user('Approved. Apply it in prod, watch it, and tell me when p99 is back.');
  transcript.step('Creating the index on the prod primary (concurrently).', [
    {
      name: 'Bash',
      input: {
        command:
          'psql -h orders-primary -c "CREATE INDEX CONCURRENTLY order_items_cart_id_status_idx ON order_items (cart_id, status)"',
      },
      output: 'CREATE INDEX\nTime: 431022.554 ms (07:11.023)',
    },
  ]);
  for (let index = 0; index < 24; index++) {
    transcript.step(
      index === 0 ? 'Watching latency and pool waits while the new plan takes over.' : undefined,
      [
        {
          name: 'Bash',
          input: {
            command: `grafana-cli query --dashboard checkout-slo --panel latency --last 10m  # check ${index + 1}`,
          },
          output: tools.grafanaSeries(
            'checkout-api http_request_duration (POST /v2/checkout)',
            10,
            10 - Math.max(0, 6 - index),
          ),
        },
        {
          name: 'Bash',
          input: {
            command: `kubectl -n checkout logs ${pick(tools.pods)} --since=2m | tail -n 25`,
          },
          output: tools.podLogs(pick(tools.pods), 25, index < 4, transcript.now),
        },
      ],
    );
  }
  for (const pod of tools.pods.slice(6)) {
    transcript.step(undefined, [
      {
        name: 'Bash',
        input: {
          command: `kubectl -n checkout logs ${pod} --since=5m | grep -c duration_ms=[0-9][0-9][0-9][0-9]`,
        },
        output: String(between(0, 2)),
      },
    ]);
  }
  transcript.answer(
    'Index created at 15:12 UTC. Since 15:14 checkout p99 is 170-200 ms again, pool waits are gone, no 504s in the last 10 minutes on any of the 12 pods.',
  );

  transcript.user(
    'Great. Write the incident summary with a timeline, root cause, and follow-ups. Keep it short.',
  );
  transcript.step('Collecting exact times from the deploy and the alert.', [
    {
      name: 'Bash',
      input: { command: 'pd incident show CHK-INC-4471 --json | jq ".timeline"' },
      output: JSON.stringify(
        Array.from({ length: 24 }, (_, index) => ({
          at: new Date(Date.parse('2025-06-11T14:05:00Z') + index * 180_000).toISOString(),
          type: pick(['alert', 'ack', 'note', 'escalation', 'annotation']),
          by: pick(['pagerduty', 'oncall-agent', 'sam.k', 'priya.r']),
          text: `event ${index} ${hex(12)}`,
        })),
        null,
        2,
      ),
    },
  ]);
  transcript.answer(
    [
      'Incident CHK-INC-4471: checkout latency regression',
      '',
      'Timeline (UTC, 2025-06-11)',
      '- 13:58 v2.14.0 deployed (commit 4e7a1c9d2b, CHK-2291); its migration drops order_items_cart_id_idx',
      '- 14:05 checkout p99 rises from ~180 ms to 2.4 s; page at 14:09',
      '- 14:40 root cause found: findOpenCartItems does a sequential scan of order_items (14.2M rows, 1.84 s)',
      '- 15:05 fix confirmed on staging; 15:12 index order_items_cart_id_status_idx created in prod',
      '- 15:14 p99 back to 170-200 ms',
      '',
      'Root cause: the release dropped the only index usable for order_items lookups by cart_id.',
      '',
      'Follow-ups: add order_items_cart_id_status_idx to the migrations; CI check that plans for hot queries stay index scans; revert the DROP INDEX migration.',
    ].join('\n'),
  );
}
