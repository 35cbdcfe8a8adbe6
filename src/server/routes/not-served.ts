/**
 * Routes of ADK's API server orrery does not serve (evaluations, the agent builder, traces,
 * artifacts, graphs): a 501 problem that says so, so ADK's web UI shows the chat without them.
 */
import type { Hono } from 'hono';
import { HttpProblem } from '../errors.js';
import type { ServerEnv } from '../server-env.js';

const NOT_SERVED = [
  '/dev/*',
  '/debug/*',
  '/apps/:app/eval_sets',
  '/apps/:app/eval_sets/*',
  '/apps/:app/eval_results',
  '/apps/:app/eval_results/*',
  '/apps/:app/eval_metrics',
  '/apps/:app/users/:user/sessions/:session/artifacts',
  '/apps/:app/users/:user/sessions/:session/artifacts/*',
  '/apps/:app/users/:user/sessions/:session/events/:event/graph',
  '/api/reasoning_engine',
];

export function registerNotServedRoutes(app: Hono<ServerEnv>): void {
  for (const path of NOT_SERVED) {
    app.all(path, (context) => {
      throw new HttpProblem({
        status: 501,
        slug: 'not-served',
        title: 'Not Implemented',
        detail: `${context.req.method} ${context.req.path} is an ADK API server route orrery does not serve (evaluations, builder, traces, artifacts and graphs are ADK tooling); sessions, /run and /run_sse are served`,
      });
    });
  }
}
