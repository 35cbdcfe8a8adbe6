/**
 * The conversation every provider fixture was recorded with: a user question, a model turn
 * with a signed thought and a signed function call, the function's response, and two tools.
 */
import type { ModelRequest } from '../types.js';

export const testEnv = {
  GEMINI_API_KEY: 'test-gemini-key',
  OPENAI_API_KEY: 'test-openai-key',
  ANTHROPIC_API_KEY: 'test-anthropic-key',
  ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:11434/v1',
};

export function travelRequest(): ModelRequest {
  return {
    systemInstruction: 'You are a concise travel assistant.',
    contents: [
      {
        role: 'user',
        parts: [{ text: 'What is the weather in Paris? Then book a table for two.' }],
      },
      {
        role: 'model',
        parts: [
          {
            text: 'I should check the weather first.',
            thought: true,
            thoughtSignature: 'CiQBjz1rX0signatureA',
          },
          {
            functionCall: { id: 'call-weather-1', name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'CiQBjz1rX0signatureB',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call-weather-1',
              name: 'get_weather',
              response: { temperature: 21, unit: 'C', sky: 'clear' },
            },
          },
        ],
      },
    ],
    tools: [
      {
        name: 'get_weather',
        description: 'Current weather for a city.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        },
      },
      {
        name: 'book_table',
        description: 'Book a restaurant table.',
        parameters: {
          type: 'object',
          properties: {
            restaurant: { type: 'string' },
            time: { type: 'string' },
            guests: { type: 'integer' },
          },
          required: ['restaurant', 'time'],
        },
      },
    ],
  };
}
