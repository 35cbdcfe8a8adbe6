import type { Random } from './random.js';

export const NODES = ['ip-10-42-3-17', 'ip-10-42-5-88', 'ip-10-42-7-201', 'ip-10-42-9-64'];
const ENDPOINTS = [
  'POST /v2/checkout',
  'GET /v2/cart/:id',
  'POST /v2/cart/:id/items',
  'GET /v2/orders/:id',
  'POST /v2/payments/authorize',
];

/**
 * Plausible outputs of the commands the on-call agent runs (kubectl, logs, Grafana, psql, git,
 * source files). Every output draws from the shared seeded generator, so call order matters.
 */
export class ToolOutputs {
  /** The checkout-api pod names, drawn once when constructed. */
  readonly pods: readonly string[];

  constructor(private readonly random: Random) {
    const { hex } = random;
    this.pods = Array.from({ length: 12 }, (_, index) =>
      `checkout-api-7d9f${hex(5)}-${hex(5)}${index}`.slice(0, 32),
    );
  }

  /** `kubectl get pods -o wide`: the API pods, then the workers. */
  kubectlGetPods(namespace: string): string {
    const { pick, between, hex } = this.random;
    const header =
      'NAME                               READY   STATUS    RESTARTS        AGE     IP             NODE';
    const rows = this.pods.map(
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

  /** `count` request log lines ending near `now`; `slow` makes checkouts slow and log their DB query. */
  podLogs(pod: string, count: number, slow: boolean, now: number): string {
    const { next, pick, between, hex } = this.random;
    const out: string[] = [];
    let time = now - count * 900;
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

  /** A latency table at 1m resolution that regresses from point `regressionAt` on. */
  grafanaSeries(metric: string, points: number, regressionAt: number): string {
    const { between } = this.random;
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

  /** `pg_stat_statements`, the hot cart-items lookup first. */
  pgStatStatements(): string {
    const { next, pick, between } = this.random;
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

  /** `EXPLAIN ANALYZE` of the cart-items lookup, with or without the (cart_id, status) index. */
  explain(indexed: boolean): string {
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

  /** `git show v2.14.0`: the repository change and the migration dropping the index, then noise. */
  gitDiff(): string {
    const { pick, between, hex } = this.random;
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

  /** A numbered source listing as the Read tool returns it. */
  sourceFile(path: string, length: number): string {
    const { pick, between, hex } = this.random;
    const out: string[] = [];
    for (let index = 1; index <= length; index++) {
      out.push(
        `${String(index).padStart(5)}\t${pick(['  ', '    ', '      '])}${pick(['const', 'return', 'await', 'if (', 'this.', '//'])} ${pick(['cart', 'items', 'order', 'db', 'span', 'metrics'])}${pick(['.query(', ' = ', '.record(', '.id', ''])}${hex(between(4, 18))}${pick([');', ';', ' {', ''])}`,
      );
    }
    return `${path}\n${out.join('\n')}`;
  }

  /** `\d order_items`: no index on cart_id. */
  tableIndexes(): string {
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
}
