/**
 * Writes `examples/incident-session.jsonl`: a long, tool-heavy on-call session in Claude Code's
 * JSONL format (an agent chasing a checkout latency regression through kubectl, logs, SQL and
 * the release diff). Deterministic: a seeded generator and fixed clock, so the file only changes
 * when this script does.
 *
 *   npx tsx examples/generate-incident-session.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** mulberry32: small, seeded, good enough for plausible numbers. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(20250611);
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
const between = (low: number, high: number) => Math.floor(low + next() * (high - low + 1));
const hex = (length: number) =>
  Array.from({ length }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join('');

const SESSION_ID = '6c1f2e0a-4b7d-4f1e-9a3c-2d8e5b7a9c10';
const MODEL = 'claude-sonnet-4-5-20250929';
let clock = Date.parse('2025-06-11T14:21:07.000Z');
let uuidCounter = 0;
let parent: string | null = null;
let inputTokens = 18_000;
const lines: string[] = [];

const uuid = () => {
  uuidCounter++;
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${String(uuidCounter).padStart(12, '0')}`;
};
const tick = (low: number, high: number) => {
  clock += between(low, high);
  return new Date(clock).toISOString();
};

let sidechain = false;

function write(record: Record<string, unknown>): void {
  const id = uuid();
  lines.push(
    JSON.stringify({
      parentUuid: parent,
      userType: 'external',
      cwd: '/home/oncall/checkout',
      sessionId: SESSION_ID,
      version: '1.0.83',
      gitBranch: 'main',
      ...record,
      isSidechain: sidechain,
      uuid: id,
    }),
  );
  parent = id;
}

function user(text: string): void {
  write({
    type: 'user',
    message: { role: 'user', content: text },
    timestamp: tick(20_000, 90_000),
  });
}

/** One assistant turn: optional text, then one or more tool calls, each answered. */
function step(
  text: string | undefined,
  calls: Array<{ name: string; input: object; output: string; error?: boolean }>,
): void {
  const messageId = `msg_01${hex(22)}`;
  const requestId = `req_011C${hex(20)}`;
  inputTokens += 400;
  const usage = () => ({
    input_tokens: between(3, 9),
    cache_creation_input_tokens: between(200, 2000),
    cache_read_input_tokens: inputTokens,
    output_tokens: between(60, 400),
  });
  const blocks: object[] = [];
  if (text) blocks.push({ type: 'text', text });
  const ids = calls.map(() => `toolu_01${hex(22)}`);
  calls.forEach((call, index) => {
    blocks.push({ type: 'tool_use', id: ids[index], name: call.name, input: call.input });
  });
  // Claude Code writes one record per content block of a streamed message (same message.id).
  for (const block of blocks) {
    write({
      type: 'assistant',
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [block],
        stop_reason: null,
        usage: usage(),
      },
      requestId,
      timestamp: tick(800, 6000),
    });
  }
  calls.forEach((call, index) => {
    inputTokens += Math.round(call.output.length / 3.6);
    write({
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: ids[index],
            content: call.output,
            is_error: call.error === true,
          },
        ],
      },
      toolUseResult: { stdout: call.output.slice(0, 200), stderr: '', interrupted: false },
      timestamp: tick(300, 9000),
    });
  });
}

function answer(text: string): void {
  inputTokens += 300;
  write({
    type: 'assistant',
    message: {
      id: `msg_01${hex(22)}`,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 6,
        cache_creation_input_tokens: 900,
        cache_read_input_tokens: inputTokens,
        output_tokens: between(200, 700),
      },
    },
    requestId: `req_011C${hex(20)}`,
    timestamp: tick(3000, 15_000),
  });
}

// ---- tool outputs -------------------------------------------------------------------------

const PODS = Array.from({ length: 12 }, (_, index) =>
  `checkout-api-7d9f${hex(5)}-${hex(5)}${index}`.slice(0, 32),
);
const NODES = ['ip-10-42-3-17', 'ip-10-42-5-88', 'ip-10-42-7-201', 'ip-10-42-9-64'];
const ENDPOINTS = [
  'POST /v2/checkout',
  'GET /v2/cart/:id',
  'POST /v2/cart/:id/items',
  'GET /v2/orders/:id',
  'POST /v2/payments/authorize',
];

function kubectlGetPods(namespace: string): string {
  const header =
    'NAME                               READY   STATUS    RESTARTS        AGE     IP             NODE';
  const rows = PODS.map(
    (pod) =>
      `${pod.padEnd(35)}1/1     Running   ${String(between(0, 2)).padEnd(16)}${between(1, 3)}h${between(1, 59)}m   10.42.${between(1, 9)}.${between(2, 250)}`.padEnd(
        86,
      ) + pick(NODES),
  );
  const workers = Array.from({ length: 6 }, (_, index) =>
    `checkout-worker-5b8c${hex(5)}-${hex(5)}${index}`.slice(0, 34),
  );
  return [
    `# namespace ${namespace}`,
    header,
    ...rows,
    ...workers.map(
      (pod) =>
        `${pod.padEnd(35)}1/1     Running   0               6h2m    10.42.${between(1, 9)}.${between(2, 250)}   ${pick(NODES)}`,
    ),
  ].join('\n');
}

function podLogs(pod: string, count: number, slow: boolean): string {
  const out: string[] = [];
  let time = clock - count * 900;
  for (let index = 0; index < count; index++) {
    time += between(200, 1600);
    const endpoint = pick(ENDPOINTS);
    const checkout = endpoint === 'POST /v2/checkout';
    const latency = checkout && slow ? between(1400, 3900) : between(12, 240);
    const trace = hex(32);
    const level = latency > 3000 ? 'WARN' : 'INFO';
    out.push(
      `${new Date(time).toISOString()} ${level} [${pod}] http request completed method=${endpoint.split(' ')[0]} route=${endpoint.split(' ')[1]} status=${latency > 3500 ? 504 : 200} duration_ms=${latency} trace_id=${trace} user_agent="checkout-web/5.12.0"`,
    );
    if (checkout && slow && next() < 0.5) {
      out.push(
        `${new Date(time).toISOString()} DEBUG [${pod}] db query name=OrdersRepository.findOpenCartItems rows=${between(2, 40)} duration_ms=${latency - between(5, 60)} pool_wait_ms=${between(0, 900)}`,
      );
    }
  }
  return out.join('\n');
}

function grafanaSeries(metric: string, points: number, regressionAt: number): string {
  const out = [
    `# ${metric} (1m resolution)`,
    'time                  p50_ms   p95_ms   p99_ms   rps',
  ];
  for (let index = 0; index < points; index++) {
    const after = index >= regressionAt;
    const time = new Date(Date.parse('2025-06-11T13:40:00Z') + index * 60_000)
      .toISOString()
      .slice(0, 19);
    out.push(
      `${time}   ${String(after ? between(90, 140) : between(38, 52)).padStart(6)}   ${String(after ? between(900, 1500) : between(110, 150)).padStart(6)}   ${String(after ? between(2100, 2900) : between(160, 200)).padStart(6)}   ${between(410, 520)}`,
    );
  }
  return out.join('\n');
}

function pgStatStatements(): string {
  const rows = [
    [
      'SELECT ci.* FROM order_items ci WHERE ci.cart_id = $1 AND ci.status = $2',
      between(180_000, 220_000),
      1843.2,
    ],
    [
      'UPDATE carts SET updated_at = now(), version = version + $1 WHERE id = $2',
      between(90_000, 110_000),
      2.1,
    ],
    [
      'INSERT INTO orders (id, cart_id, user_id, total_cents, currency) VALUES ($1,$2,$3,$4,$5)',
      between(40_000, 50_000),
      1.4,
    ],
    ['SELECT p.* FROM payments p WHERE p.order_id = $1', between(40_000, 50_000), 0.9],
    ['SELECT * FROM promotions WHERE code = $1 AND active', between(20_000, 30_000), 0.4],
    ['SELECT sku, price_cents FROM prices WHERE sku = ANY($1)', between(100_000, 130_000), 1.1],
  ] as const;
  const out = [
    'query                                                                       | calls   | mean_ms  | total_ms    | rows/call',
    '-'.repeat(118),
  ];
  for (const [query, calls, mean] of rows) {
    out.push(
      `${query.slice(0, 75).padEnd(76)}| ${String(calls).padEnd(8)}| ${mean.toFixed(1).padEnd(9)}| ${Math.round(
        calls * mean,
      )
        .toString()
        .padEnd(12)}| ${between(1, 40)}`,
    );
  }
  for (let index = 0; index < 14; index++) {
    out.push(
      `SELECT ${pick(['id', 'sku', 'user_id', 'status'])} FROM ${pick(['inventory', 'users', 'addresses', 'shipments', 'refunds'])} WHERE ${pick(['id', 'user_id', 'order_id'])} = $1`.padEnd(
        76,
      ) +
        `| ${String(between(1000, 90_000)).padEnd(8)}| ${(next() * 3).toFixed(1).padEnd(9)}| ${String(between(1000, 90_000)).padEnd(12)}| 1`,
    );
  }
  return out.join('\n');
}

function explain(indexed: boolean): string {
  if (indexed) {
    return [
      'Index Scan using order_items_cart_id_status_idx on order_items ci  (cost=0.56..24.71 rows=12 width=212) (actual time=0.031..0.058 rows=9 loops=1)',
      "  Index Cond: ((cart_id = '9f1c2a'::uuid) AND (status = 'open'::text))",
      'Planning Time: 0.182 ms',
      'Execution Time: 0.081 ms',
    ].join('\n');
  }
  return [
    'Gather  (cost=1000.00..412873.20 rows=14 width=212) (actual time=1611.402..1843.977 rows=9 loops=1)',
    '  Workers Planned: 2',
    '  Workers Launched: 2',
    '  ->  Parallel Seq Scan on order_items ci  (cost=0.00..411871.80 rows=6 width=212) (actual time=1590.113..1822.340 rows=3 loops=3)',
    "        Filter: ((cart_id = '9f1c2a'::uuid) AND (status = 'open'::text))",
    '        Rows Removed by Filter: 14208731',
    'Planning Time: 0.201 ms',
    'Execution Time: 1844.112 ms',
  ].join('\n');
}

function gitDiff(): string {
  const out = [
    'commit 4e7a1c9d2b (tag: v2.14.0)',
    'Author: Priya Raman <priya@shop.example>',
    'Date:   Wed Jun 11 13:58:02 2025 +0000',
    '',
    '    orders: read open cart items by status (CHK-2291)',
    '',
    'diff --git a/src/orders/orders-repository.ts b/src/orders/orders-repository.ts',
    '@@ -88,14 +88,16 @@ export class OrdersRepository {',
    '-  async findCartItems(cartId: string) {',
    "-    return this.db.query('SELECT ci.* FROM order_items ci WHERE ci.cart_id = $1', [cartId]);",
    '+  async findOpenCartItems(cartId: string) {',
    '+    return this.db.query(',
    "+      'SELECT ci.* FROM order_items ci WHERE ci.cart_id = $1 AND ci.status = $2',",
    "+      [cartId, 'open'],",
    '+    );',
    '   }',
    'diff --git a/migrations/20250610_drop_legacy_cart_index.sql b/migrations/20250610_drop_legacy_cart_index.sql',
    'new file mode 100644',
    '@@ -0,0 +1,4 @@',
    '+-- CHK-2291: the legacy index is superseded by order_items_status_idx',
    '+DROP INDEX CONCURRENTLY IF EXISTS order_items_cart_id_idx;',
  ];
  for (let index = 0; index < 40; index++) {
    out.push(
      `diff --git a/src/${pick(['cart', 'payments', 'web', 'promotions'])}/${pick(['handler', 'service', 'mapper', 'types'])}-${index}.ts b/src/x-${index}.ts`,
    );
    out.push(`@@ -${between(1, 300)},${between(2, 9)} +${between(1, 300)},${between(2, 9)} @@`);
    out.push(
      `-  const ${pick(['total', 'items', 'payload', 'result'])} = ${pick(['await', 'this.', 'compute('])}${hex(6)};`,
    );
    out.push(
      `+  const ${pick(['total', 'items', 'payload', 'result'])} = ${pick(['await', 'this.', 'compute('])}${hex(6)}; // CHK-${between(2200, 2300)}`,
    );
  }
  return out.join('\n');
}

function sourceFile(path: string, length: number): string {
  const out: string[] = [];
  for (let index = 1; index <= length; index++) {
    out.push(
      `${String(index).padStart(5)}\t${pick(['  ', '    ', '      '])}${pick(['const', 'return', 'await', 'if (', 'this.', '//'])} ${pick(['cart', 'items', 'order', 'db', 'span', 'metrics'])}${pick(['.query(', ' = ', '.record(', '.id', ''])}${hex(between(4, 18))}${pick([');', ';', ' {', ''])}`,
    );
  }
  return `${path}\n${out.join('\n')}`;
}

function tableIndexes(): string {
  return [
    '                                     Table "public.order_items"',
    '   Column    |           Type           | Nullable |      Default',
    '-------------+--------------------------+----------+--------------------',
    ' id          | uuid                     | not null | gen_random_uuid()',
    ' cart_id     | uuid                     | not null |',
    ' order_id    | uuid                     |          |',
    ' sku         | text                     | not null |',
    ' quantity    | integer                  | not null | 1',
    ' price_cents | bigint                   | not null |',
    " status      | text                     | not null | 'open'::text",
    ' created_at  | timestamp with time zone | not null | now()',
    'Indexes:',
    '    "order_items_pkey" PRIMARY KEY, btree (id)',
    '    "order_items_order_id_idx" btree (order_id)',
    '    "order_items_status_idx" btree (status)',
    '    "order_items_sku_idx" btree (sku)',
    'Table size: 14,208,740 rows, 9.7 GB',
  ].join('\n');
}

// ---- the session --------------------------------------------------------------------------

lines.push(
  JSON.stringify({
    type: 'summary',
    summary: 'Checkout latency regression after v2.14.0',
    leafUuid: 'placeholder',
  }),
);

user(
  'PagerDuty: checkout p99 went from ~180ms to 2.4s starting around 14:05 UTC, error budget burning fast. v2.14.0 went out at 13:58. Please investigate (prod cluster, namespace checkout). Do not change anything in prod without asking me.',
);
step('Starting with the pod state and the latency dashboards for the checkout namespace.', [
  {
    name: 'Bash',
    input: { command: 'kubectl -n checkout get pods -o wide', description: 'List checkout pods' },
    output: kubectlGetPods('checkout'),
  },
]);
step(undefined, [
  {
    name: 'Bash',
    input: {
      command: 'grafana-cli query --dashboard checkout-slo --panel latency --from 13:40 --to now',
    },
    output: grafanaSeries('checkout-api http_request_duration (POST /v2/checkout)', 48, 25),
  },
]);
step(
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
      output: PODS.map(
        (pod) => `${pod}   checkout-api   ${between(180, 420)}m   ${between(410, 560)}Mi`,
      ).join('\n'),
    },
  ],
);
for (const node of NODES) {
  step(undefined, [
    {
      name: 'Bash',
      input: {
        command: `kubectl describe node ${node} | sed -n '/Allocated resources/,/Events/p'`,
      },
      output: `Allocated resources:\n  Resource           Requests      Limits\n  cpu                ${between(1800, 3400)}m (${between(45, 85)}%)  ${between(4000, 7000)}m\n  memory             ${between(4, 9)}Gi (${between(30, 70)}%)  ${between(9, 14)}Gi\nEvents:\n${Array.from({ length: 12 }, () => `  Normal  ${pick(['Scheduled', 'Pulled', 'Started', 'Created'])}  ${between(1, 59)}m  kubelet  ${pick(['Container image pulled', 'Started container checkout-api', 'Successfully assigned'])} ${hex(10)}`).join('\n')}`,
    },
  ]);
}
for (const pod of PODS) {
  step(`Reading recent logs and events of ${pod}.`, [
    {
      name: 'Bash',
      input: { command: `kubectl -n checkout logs ${pod} --since=20m | tail -n 45` },
      output: podLogs(pod, 45, true),
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
  step(
    service === 'cart-api'
      ? 'Checking whether other services regressed too (blast radius).'
      : undefined,
    [
      {
        name: 'Bash',
        input: {
          command: `grafana-cli query --dashboard ${service}-slo --panel latency --from 13:40 --to now`,
        },
        output: grafanaSeries(
          `${service} http_request_duration`,
          30,
          service === 'web-frontend' ? 15 : 999,
        ),
      },
    ],
  );
}
step(
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
          `db_pool_${pick(['in_use', 'idle', 'waiting', 'wait_seconds_bucket'])}{pool="orders",instance="${PODS[index % PODS.length]}"${index % 3 === 0 ? `,le="${pick(['0.01', '0.1', '1', '5'])}"` : ''}} ${between(0, 50)}`,
      ).join('\n'),
    },
  ],
);
answer(
  'Summary so far: only POST /v2/checkout regressed, starting 14:05, 7 minutes after v2.14.0. Pods are healthy (no restarts, CPU 180-420m). Slow requests all spend their time in OrdersRepository.findOpenCartItems (1.4-3.9 s), and the orders DB pool has waiters. Next I would look at the database: which statements got slower, and their plans.',
);

user(
  'DB team says the primary CPU looks fine, ~35%. Can you check the queries anyway? You have read-only psql access via `psql -h orders-ro`.',
);
step('Looking at pg_stat_statements on the read replica.', [
  {
    name: 'Bash',
    input: {
      command:
        'psql -h orders-ro -c "SELECT query, calls, mean_exec_time, total_exec_time FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 20"',
    },
    output: pgStatStatements(),
  },
]);
step('The order_items lookup by cart_id and status averages 1.8 s. Explaining it.', [
  {
    name: 'Bash',
    input: {
      command:
        "psql -h orders-ro -c \"EXPLAIN ANALYZE SELECT ci.* FROM order_items ci WHERE ci.cart_id = '9f1c2a' AND ci.status = 'open'\"",
    },
    output: explain(false),
  },
  {
    name: 'Bash',
    input: { command: 'psql -h orders-ro -c "\\d order_items"' },
    output: tableIndexes(),
  },
]);
for (let index = 0; index < 16; index++) {
  step(
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
answer(
  "The database is the bottleneck after all, just not on CPU: findOpenCartItems' query (order_items by cart_id and status) does a parallel sequential scan over 14.2M rows, 1.84 s per call, ~200k calls since the deploy. order_items has no index on cart_id: only pkey, order_id, status and sku. The sessions are mostly waiting on IO (DataFileRead).",
);

user('Found something? The release diff touched the orders repository, check what changed.');
step('Reading the release diff for v2.14.0.', [
  {
    name: 'Bash',
    input: { command: 'git show v2.14.0 --stat && git show v2.14.0' },
    output: gitDiff(),
  },
]);
step(
  'The release adds migrations/20250610_drop_legacy_cart_index.sql, which drops order_items_cart_id_idx. Reading the repository code and the migration history.',
  [
    {
      name: 'Read',
      input: { file_path: '/home/oncall/checkout/src/orders/orders-repository.ts' },
      output: sourceFile('src/orders/orders-repository.ts', 140),
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
  step(undefined, [
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
// A sub-agent (Claude Code's Task tool) searches the migrations; its records are a sidechain.
{
  const taskId = `toolu_01${hex(22)}`;
  write({
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
    timestamp: tick(1000, 3000),
  });
  sidechain = true;
  write({
    type: 'user',
    message: {
      role: 'user',
      content:
        'List every migration since May that creates or drops an index on order_items, with its release tag.',
    },
    timestamp: tick(100, 500),
  });
  for (let index = 0; index < 8; index++) {
    step(index === 0 ? 'Searching the migrations folder.' : undefined, [
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
  answer(
    'Only one migration drops an index on order_items since May: 20250610_drop_legacy_cart_index.sql (v2.14.0) drops order_items_cart_id_idx. No migration creates a replacement on cart_id.',
  );
  sidechain = false;
  write({
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
    timestamp: tick(500, 2000),
  });
}
answer(
  'Root cause candidate: v2.14.0 (commit 4e7a1c9d2b, CHK-2291) dropped order_items_cart_id_idx on the assumption that order_items_status_idx supersedes it, and changed the lookup to filter by cart_id AND status. status has 3 distinct values, so the planner scans the table: every checkout pays ~1.8 s.',
);

user(
  'Can we confirm it is the missing index on order_items(cart_id)? Staging has the same data shape.',
);
for (let index = 0; index < 12; index++) {
  step(
    index === 0
      ? 'Comparing plans on staging before and after a test index, several carts each.'
      : undefined,
    [
      {
        name: 'Bash',
        input: {
          command: `psql -h orders-staging -c "EXPLAIN ANALYZE SELECT ci.* FROM order_items ci WHERE ci.cart_id = '${hex(6)}' AND ci.status = 'open'"`,
        },
        output: explain(false),
      },
    ],
  );
}
step('Creating the index concurrently on staging only.', [
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
  step(undefined, [
    {
      name: 'Bash',
      input: {
        command: `psql -h orders-staging -c "EXPLAIN ANALYZE SELECT ci.* FROM order_items ci WHERE ci.cart_id = '${hex(6)}' AND ci.status = 'open'"`,
      },
      output: explain(true),
    },
  ]);
}
step('Running the checkout load test against staging.', [
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
answer(
  'Confirmed on staging: with order_items_cart_id_status_idx (cart_id, status) the lookup is an index scan, 0.08 ms instead of 1844 ms, and the checkout load test is back to p99 170-210 ms. Proposed prod mitigation: CREATE INDEX CONCURRENTLY order_items_cart_id_status_idx ON order_items (cart_id, status) (about 7 minutes on 14M rows, no table lock).',
);

user('Approved. Apply it in prod, watch it, and tell me when p99 is back.');
step('Creating the index on the prod primary (concurrently).', [
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
  step(index === 0 ? 'Watching latency and pool waits while the new plan takes over.' : undefined, [
    {
      name: 'Bash',
      input: {
        command: `grafana-cli query --dashboard checkout-slo --panel latency --last 10m  # check ${index + 1}`,
      },
      output: grafanaSeries(
        'checkout-api http_request_duration (POST /v2/checkout)',
        10,
        10 - Math.max(0, 6 - index),
      ),
    },
    {
      name: 'Bash',
      input: { command: `kubectl -n checkout logs ${pick(PODS)} --since=2m | tail -n 25` },
      output: podLogs(pick(PODS), 25, index < 4),
    },
  ]);
}
for (const pod of PODS.slice(6)) {
  step(undefined, [
    {
      name: 'Bash',
      input: {
        command: `kubectl -n checkout logs ${pod} --since=5m | grep -c duration_ms=[0-9][0-9][0-9][0-9]`,
      },
      output: String(between(0, 2)),
    },
  ]);
}
answer(
  'Index created at 15:12 UTC. Since 15:14 checkout p99 is 170-200 ms again, pool waits are gone, no 504s in the last 10 minutes on any of the 12 pods.',
);

user(
  'Great. Write the incident summary with a timeline, root cause, and follow-ups. Keep it short.',
);
step('Collecting exact times from the deploy and the alert.', [
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
answer(
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

const folder = dirname(fileURLToPath(import.meta.url));
const target = join(folder, 'incident-session.jsonl');
writeFileSync(target, `${lines.join('\n')}\n`);
console.log(`wrote ${target}: ${lines.length} records`);
