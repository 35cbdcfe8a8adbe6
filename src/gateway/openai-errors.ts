/** The gateway's own refusals in OpenAI's error shape, so OpenAI clients raise them as usual. */
export function openAiError(options: {
  status: number;
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}): Response {
  const { status, ...error } = options;
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
