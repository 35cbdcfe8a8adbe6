import { describe, expect, it } from 'vitest';
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { RunnerConfigError } from '../errors.js';
import { AgentTool } from '../tools/agent-tool.js';
import { Runner } from '../turn/runner.js';
import type { Agent } from './agent.js';
import { createExitLoopTool } from './control-tools.js';
import { LlmAgent } from './llm-agent.js';
import { LoopAgent } from './loop-agent.js';
import { ParallelAgent } from './parallel-agent.js';
import { SequentialAgent } from './sequential-agent.js';

const key = { appName: 'flows', userId: 'u', sessionId: 's' };

async function run(agent: Agent, newMessage = 'go'): Promise<Event[]> {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  const runner = new Runner({ appName: key.appName, agent, sessionService, compaction: null });
  const events: Event[] = [];
  for await (const event of runner.run({ ...key, newMessage })) events.push(event);
  return events;
}

const textOf = (event: Event) => event.content?.parts.map((part) => part.text ?? '').join('');

describe('LoopAgent', () => {
  it('stops after the sub-agent that escalates (exit_loop), in the middle of a pass', async () => {
    const writer = new ScriptedModel({
      script: [textResponse('draft 1'), textResponse('draft 2')],
    });
    const critic = new ScriptedModel({
      script: [textResponse('needs work'), toolCallResponse([{ id: 'x', name: 'exit_loop' }])],
    });
    const third = new ScriptedModel({ script: [textResponse('noted')] });
    const loop = new LoopAgent({
      name: 'refine',
      subAgents: [
        new LlmAgent({ name: 'writer', model: writer }),
        new LlmAgent({ name: 'critic', model: critic, tools: [createExitLoopTool()] }),
        new LlmAgent({ name: 'third', model: third }),
      ],
    });
    const events = await run(loop);
    expect(writer.calls).toHaveLength(2);
    expect(critic.calls).toHaveLength(2);
    // Pass 1 ran all three; pass 2 stopped after the critic escalated.
    expect(third.calls).toHaveLength(1);
    const escalation = events.at(-1)!;
    expect(escalation.author).toBe('critic');
    expect(escalation.actions.escalate).toBe(true);
    expect(escalation.content?.parts[0]?.functionResponse?.name).toBe('exit_loop');
    // The second draft's request saw the critic's verdict on the first.
    expect(JSON.stringify(writer.calls[1]?.contents)).toContain('needs work');
  });

  it('stops at maxIterations when nobody escalates', async () => {
    const model = new ScriptedModel({
      script: [textResponse('1'), textResponse('2'), textResponse('3')],
    });
    const loop = new LoopAgent({
      name: 'bounded',
      maxIterations: 3,
      subAgents: [new LlmAgent({ name: 'step', model })],
    });
    const events = await run(loop);
    expect(model.calls).toHaveLength(3);
    expect(events.filter((event) => event.author === 'step').map(textOf)).toEqual(['1', '2', '3']);
    expect(model.remaining).toBe(0);
  });

  it('refuses a bound that is not a positive integer', () => {
    const step = new LlmAgent({ name: 'step', model: new ScriptedModel({ script: [] }) });
    expect(() => new LoopAgent({ name: 'l', maxIterations: 0, subAgents: [step] })).toThrow(
      RunnerConfigError,
    );
  });
});

describe('transfer_to_agent', () => {
  it('hands the turn to a sub-agent and back to the parent within one invocation', async () => {
    const leadModel = new ScriptedModel({
      script: [
        toolCallResponse([
          { id: 't1', name: 'transfer_to_agent', args: { agent_name: 'billing' } },
        ]),
        textResponse('Refund confirmed by billing.'),
      ],
    });
    const billingModel = new ScriptedModel({
      script: [
        toolCallResponse([{ id: 't2', name: 'transfer_to_agent', args: { agent_name: 'lead' } }]),
      ],
    });
    const billing = new LlmAgent({ name: 'billing', model: billingModel });
    const lead = new LlmAgent({ name: 'lead', model: leadModel, subAgents: [billing] });
    const events = await run(lead, 'refund order 7?');
    expect(billing.parentAgent).toBe(lead);
    // The declarations ADK's transfer offers: sub-agents from the lead, the parent from billing.
    const leadTool = leadModel.calls[0]?.tools?.find((tool) => tool.name === 'transfer_to_agent');
    expect(leadTool?.parameters).toMatchObject({
      properties: { agent_name: { enum: ['billing'] } },
    });
    const billingTool = billingModel.calls[0]?.tools?.find(
      (tool) => tool.name === 'transfer_to_agent',
    );
    expect(billingTool?.parameters).toMatchObject({
      properties: { agent_name: { enum: ['lead'] } },
    });
    const transfers = events
      .filter((event) => event.actions.transferToAgent)
      .map((event) => `${event.author}->${event.actions.transferToAgent}`);
    expect(transfers).toEqual(['lead->billing', 'billing->lead']);
    expect(events.at(-1)?.author).toBe('lead');
    expect(textOf(events.at(-1)!)).toBe('Refund confirmed by billing.');
    // Billing's request held the lead's transfer (one session, one invocation).
    expect(JSON.stringify(billingModel.calls[0]?.contents)).toContain('"t1"');
    expect(new Set(events.map((event) => event.invocationId)).size).toBe(1);
  });

  it('answers a transfer to an unknown agent with an error the model reads', async () => {
    const model = new ScriptedModel({
      script: [
        toolCallResponse([{ id: 't', name: 'transfer_to_agent', args: { agent_name: 'nobody' } }]),
        textResponse('ok, I answer myself'),
      ],
    });
    const lead = new LlmAgent({
      name: 'lead',
      model,
      subAgents: [new LlmAgent({ name: 'billing', model: new ScriptedModel({ script: [] }) })],
    });
    const events = await run(lead);
    const response = events.find((event) => event.content?.parts[0]?.functionResponse);
    expect(response?.actions.transferToAgent).toBeUndefined();
    expect(JSON.stringify(response?.content)).toContain('agent_name must be one of billing');
  });
});

describe('AgentTool', () => {
  it('runs the agent in a session of its own and returns its final answer as the result', async () => {
    const inner = new ScriptedModel({
      script: [textResponse('scratch work'.repeat(3)), textResponse('never')],
    });
    const outer = new ScriptedModel({
      script: [
        toolCallResponse([{ id: 'c', name: 'researcher', args: { request: 'find the owner' } }]),
        textResponse('The owner is on-call.'),
      ],
    });
    const researcher = new LlmAgent({ name: 'researcher', model: inner });
    const events = await run(
      new LlmAgent({ name: 'lead', model: outer, tools: [new AgentTool({ agent: researcher })] }),
    );
    expect(inner.calls).toHaveLength(1);
    expect(JSON.stringify(inner.calls[0]?.contents)).toContain('find the owner');
    const response = events.find((event) => event.content?.parts[0]?.functionResponse);
    expect(response?.content?.parts[0]?.functionResponse?.response).toEqual({
      result: 'scratch work'.repeat(3),
    });
    // Only the lead's events are in the caller's session.
    expect(new Set(events.map((event) => event.author))).toEqual(new Set(['user', 'lead']));
  });
});

describe('ParallelAgent', () => {
  it('names branches as ADK nests them: <parent branch>.<parallel>.<sub-agent>', async () => {
    const inner = new ScriptedModel({ script: [textResponse('inner')] });
    const other = new ScriptedModel({ script: [textResponse('other')] });
    const deep = new ScriptedModel({ script: [textResponse('deep')] });
    const agent = new ParallelAgent({
      name: 'outer',
      subAgents: [
        new ParallelAgent({
          name: 'mid',
          subAgents: [new LlmAgent({ name: 'leaf', model: deep })],
        }),
        new SequentialAgent({
          name: 'seq',
          subAgents: [
            new LlmAgent({ name: 'one', model: inner }),
            new LlmAgent({ name: 'two', model: other }),
          ],
        }),
      ],
    });
    const events = await run(agent);
    const branches = Object.fromEntries(
      events
        .filter((event) => event.author !== 'user')
        .map((event) => [event.author, event.branch]),
    );
    expect(branches).toEqual({
      leaf: 'outer.mid.mid.leaf',
      one: 'outer.seq',
      two: 'outer.seq',
    });
    // `two` runs after `one` on the same branch and sees its answer.
    expect(JSON.stringify(other.calls[0]?.contents)).toContain('inner');
  });

  it('refuses two sub-agents of one name', () => {
    const model = new ScriptedModel({ script: [] });
    expect(
      () =>
        new ParallelAgent({
          name: 'p',
          subAgents: [new LlmAgent({ name: 'a', model }), new LlmAgent({ name: 'a', model })],
        }),
    ).toThrow(/two sub-agents named 'a'/);
  });
});
