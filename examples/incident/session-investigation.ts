import type { SessionContext } from './session-context.js';
import { NODES } from './tool-outputs.js';

/**
 * The first half of the incident: the page, triage of pods, dashboards and logs, the database,
 * and the search of the code base for the release's change.
 */
export function investigate(context: SessionContext): void {
  const { random, transcript, tools } = context;
  const { pick, between, hex } = random;
  transcript.raw({
    type: 'summary',
    summary: 'Checkout latency regression after v2.14.0',
    leafUuid: 'placeholder',
  });

  transcript.user(
    'PagerDuty: checkout p99 went from ~180ms to 2.4s starting around 14:05 UTC, error budget burning fast. v2.14.0 went out at 13:58. Please investigate (prod cluster, namespace checkout). Do not change anything in prod without asking me.',
  );
  transcript.step(
    'Starting with the pod state and the latency dashboards for the checkout namespace.',
    [
      {
        name: 'Bash',
        input: {
          command: 'kubectl -n checkout get pods -o wide',
          description: 'List checkout pods',
        },
        output: tools.kubectlGetPods('checkout'),
      },
    ],
  );
  transcript.step(undefined, [
    {
      name: 'Bash',
      input: {
        command: 'grafana-cli query --dashboard checkout-slo --panel latency --from 13:40 --to now',
      },
      output: tools.grafanaSeries('checkout-api http_request_duration (POST /v2/checkout)', 48, 25),
    },
  ]);
  transcript.step(
    'Latency jumps at 14:05 only for POST /v2/checkout. Checking rollout history and resource usage.',
    [
      {
        name: 'Bash',
        input: { command: 'kubectl -n checkout rollout history deploy/checkout-api' },
        output: `deployment.apps/checkout-api\nREVISION  CHANGE-CAUSE\n${Array.from({ length: 18 }, (_, index) => `${index + 40}        image=registry.shop.example/checkout-api:v2.${Math.max(0, index - 4)}.${between(0, 9)}  deployed-by=argo-cd`).join('\n')}\n58        image=registry.shop.example/checkout-api:v2.14.0 deployed-by=argo-cd (2025-06-11T13:58:11Z)`,
      },
      {
        name: 'Bash',
        input: { command: 'kubectl -n checkout top pods --containers' },
        output: tools.pods
          .map((pod) => `${pod}   checkout-api   ${between(180, 420)}m   ${between(410, 560)}Mi`)
          .join('\n'),
      },
    ],
  );
  for (const node of NODES) {
    transcript.step(undefined, [
      {
        name: 'Bash',
        input: {
          command: `kubectl describe node ${node} | sed -n '/Allocated resources/,/Events/p'`,
        },
        output: `Allocated resources:\n  Resource           Requests      Limits\n  cpu                ${between(1800, 3400)}m (${between(45, 85)}%)  ${between(4000, 7000)}m\n  memory             ${between(4, 9)}Gi (${between(30, 70)}%)  ${between(9, 14)}Gi\nEvents:\n${Array.from({ length: 12 }, () => `  Normal  ${pick(['Scheduled', 'Pulled', 'Started', 'Created'])}  ${between(1, 59)}m  kubelet  ${pick(['Container image pulled', 'Started container checkout-api', 'Successfully assigned'])} ${hex(10)}`).join('\n')}`,
      },
    ]);
  }
  for (const pod of tools.pods) {
    transcript.step(`Reading recent logs and events of ${pod}.`, [
      {
        name: 'Bash',
        input: { command: `kubectl -n checkout logs ${pod} --since=20m | tail -n 45` },
        output: tools.podLogs(pod, 45, true, transcript.now),
      },
      {
        name: 'Bash',
        input: { command: `kubectl -n checkout describe pod ${pod} | tail -n 20` },
        output: `Name: ${pod}\nNamespace: checkout\nNode: ${pick(NODES)}\nStatus: Running\nContainers:\n  checkout-api:\n    Image: registry.shop.example/checkout-api:v2.14.0\n    Limits: cpu 1, memory 1Gi\n    Requests: cpu 250m, memory 512Mi\n    Readiness: http-get :8080/healthz delay=5s period=10s\nConditions: Ready True, ContainersReady True, PodScheduled True\nEvents: <none>`,
      },
    ]);
  }
  for (const service of [
    'cart-api',
    'payments-api',
    'pricing-api',
    'promotions-api',
    'inventory-api',
    'web-frontend',
    'orders-worker',
    'notifications',
  ]) {
    transcript.step(
      service === 'cart-api'
        ? 'Checking whether other services regressed too (blast radius).'
        : undefined,
      [
        {
          name: 'Bash',
          input: {
            command: `grafana-cli query --dashboard ${service}-slo --panel latency --from 13:40 --to now`,
          },
          output: tools.grafanaSeries(
            `${service} http_request_duration`,
            30,
            service === 'web-frontend' ? 15 : 999,
          ),
        },
      ],
    );
  }
  transcript.step(
    'Slow requests all log OrdersRepository.findOpenCartItems with long durations. Checking the connection pool and DB-side waits.',
    [
      {
        name: 'Bash',
        input: {
          command:
            "kubectl -n checkout logs -l app=checkout-api --since=20m | grep -c 'pool_wait_ms=[0-9]\\{3,\\}'",
        },
        output: String(between(3000, 4000)),
      },
      {
        name: 'Bash',
        input: {
          command:
            'kubectl -n checkout exec deploy/checkout-api -- curl -s localhost:9090/metrics | grep db_pool',
        },
        output: Array.from(
          { length: 40 },
          (_, index) =>
            `db_pool_${pick(['in_use', 'idle', 'waiting', 'wait_seconds_bucket'])}{pool="orders",instance="${tools.pods[index % tools.pods.length]}"${index % 3 === 0 ? `,le="${pick(['0.01', '0.1', '1', '5'])}"` : ''}} ${between(0, 50)}`,
        ).join('\n'),
      },
    ],
  );
  transcript.answer(
    'Summary so far: only POST /v2/checkout regressed, starting 14:05, 7 minutes after v2.14.0. Pods are healthy (no restarts, CPU 180-420m). Slow requests all spend their time in OrdersRepository.findOpenCartItems (1.4-3.9 s), and the orders DB pool has waiters. Next I would look at the database: which statements got slower, and their plans.',
  );

  transcript.user(
    'DB team says the primary CPU looks fine, ~35%. Can you check the queries anyway? You have read-only psql access via `psql -h orders-ro`.',
  );
  transcript.step('Looking at pg_stat_statements on the read replica.', [
    {
      name: 'Bash',
      input: {
        command:
          'psql -h orders-ro -c "SELECT query, calls, mean_exec_time, total_exec_time FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 20"',
      },
      output: tools.pgStatStatements(),
    },
  ]);
  transcript.step('The order_items lookup by cart_id and status averages 1.8 s. Explaining it.', [
    {
      name: 'Bash',
      input: {
        command:
          "psql -h orders-ro -c \"EXPLAIN ANALYZE SELECT ci.* FROM order_items ci WHERE ci.cart_id = '9f1c2a' AND ci.status = 'open'\"",
      },
      output: tools.explain(false),
    },
    {
      name: 'Bash',
      input: { command: 'psql -h orders-ro -c "\\d order_items"' },
      output: tools.tableIndexes(),
    },
  ]);
  for (let index = 0; index < 16; index++) {
    transcript.step(
      index === 0
        ? 'Sequential scan over 14M rows: there is no index on cart_id anymore. Checking locks and replica lag while I am here.'
        : undefined,
      [
        {
          name: 'Bash',
          input: {
            command: `psql -h orders-ro -c "SELECT pid, wait_event_type, wait_event, state, now() - query_start AS runtime, left(query, 80) FROM pg_stat_activity WHERE datname = 'orders' -- sample ${index + 1}"`,
          },
          output: Array.from(
            { length: 45 },
            () =>
              `${between(10_000, 99_999)} | ${pick(['IO', 'IO', 'LWLock', ''])} | ${pick(['DataFileRead', 'BufferMapping', 'ClientRead'])} | ${pick(['active', 'active', 'idle'])} | 00:00:0${between(0, 3)}.${between(100, 999)} | SELECT ci.* FROM order_items ci WHERE ci.cart_id = $1 AND ci.status = $2`,
          ).join('\n'),
        },
      ],
    );
  }
  transcript.answer(
    "The database is the bottleneck after all, just not on CPU: findOpenCartItems' query (order_items by cart_id and status) does a parallel sequential scan over 14.2M rows, 1.84 s per call, ~200k calls since the deploy. order_items has no index on cart_id: only pkey, order_id, status and sku. The sessions are mostly waiting on IO (DataFileRead).",
  );

  transcript.user(
    'Found something? The release diff touched the orders repository, check what changed.',
  );
  transcript.step('Reading the release diff for v2.14.0.', [
    {
      name: 'Bash',
      input: { command: 'git show v2.14.0 --stat && git show v2.14.0' },
      output: tools.gitDiff(),
    },
  ]);
  transcript.step(
    'The release adds migrations/20250610_drop_legacy_cart_index.sql, which drops order_items_cart_id_idx. Reading the repository code and the migration history.',
    [
      {
        name: 'Read',
        input: { file_path: '/home/oncall/checkout/src/orders/orders-repository.ts' },
        output: tools.sourceFile('src/orders/orders-repository.ts', 140),
      },
      {
        name: 'Bash',
        input: { command: 'ls -la migrations/ | tail -n 30' },
        output: Array.from(
          { length: 30 },
          (_, index) =>
            `-rw-r--r--  1 oncall oncall  ${between(200, 3000)} Jun ${between(1, 11)} 12:${between(10, 59)} 2025${String(index + 501).padStart(4, '0')}_${pick(['add', 'drop', 'alter', 'backfill'])}_${pick(['carts', 'orders', 'payments', 'order_items'])}_${pick(['index', 'column', 'table'])}.sql`,
        ).join('\n'),
      },
    ],
  );
  for (const pattern of [
    'order_items_cart_id_idx',
    'findOpenCartItems',
    'findCartItems',
    'order_items_status_idx',
    'cart_id',
    'status = $2',
    'DROP INDEX',
    'CHK-2291',
    'OrdersRepository',
    'pool_wait_ms',
    'findOpenCartItems(',
    'order_items (cart_id',
  ]) {
    transcript.step(undefined, [
      {
        name: 'Grep',
        input: { pattern, path: '/home/oncall/checkout', output_mode: 'content', '-n': true },
        output: Array.from(
          { length: between(15, 40) },
          () =>
            `${pick(['src/orders', 'src/cart', 'migrations', 'test/orders'])}/${pick(['orders-repository', 'cart-service', 'checkout-handler', 'fixtures'])}.${pick(['ts', 'sql'])}:${between(1, 400)}:    ${pattern} ${pick(['(cartId)', '= $1', 'ON order_items', 'btree (cart_id)'])} ${hex(8)}`,
        ).join('\n'),
      },
    ]);
  }
}
