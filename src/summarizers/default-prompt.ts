/**
 * The default summarizer prompt and the placeholder filling. The summary replaces the events it
 * covers in every later request, so the prompt asks for what an agent needs to carry on:
 * exact identifiers, exact tool names, the user's words, the open work.
 */

export const CONVERSATION_HISTORY_PLACEHOLDER = '{conversation_history}';
export const PREVIOUS_SUMMARY_PLACEHOLDER = '{previous_summary}';

/** The sections every summary is written in (the standalone and the agent-prefix prompts). */
export const SUMMARY_SECTIONS = `Use exactly these sections (write "none" for an empty one):

## User goal
The user's overall goal, quoted verbatim from the user's words.

## Latest user request
The user's most recent request, quoted verbatim.

## Conversation language
The language the user writes in (the agent must keep answering in it).

## Decisions
Decisions made and constraints agreed, with their reasons.

## Facts obtained
Facts learned from tools and the user: ids, paths, numbers, versions, configuration values, results. Exact.

## Tools used
Exact tool names used, with the key arguments and what each call established.

## Errors
Errors and failures seen (tool errors, rejected calls, calls that never got a response), and whether each was resolved.

## Current state
Where the work stands now.

## Open tasks and next steps
What remains to be done, in order.`;

export const DEFAULT_SUMMARY_PROMPT = `You maintain the running summary of a conversation between a user and an AI agent that uses tools. The summary replaces the events it covers: the agent will continue the work from your summary and the most recent events alone, so anything you leave out is lost to it.

Write an UPDATED summary that folds the new events into the previous summary. Keep everything from the previous summary that is still true; update what changed; drop only what the new events show to be wrong or finished (mark finished tasks as done rather than deleting them when the result matters).

Rules:
- Copy identifiers exactly: ids, ticket numbers, file paths, URLs, commands, numbers, versions, names, dates. Never round, paraphrase or invent them.
- Name tools by their exact names as called.
- Quote the user's goal and the user's latest request VERBATIM.
- Write the summary in the conversation's language; never translate quotes or identifiers.
- Be dense and factual. Leave out pleasantries and the agent's reasoning.
- Each event is labelled [seq N]. End EVERY line of the summary (each fact, decision, error, tool result and task) with where it comes from, e.g. (seq 12) or (seq 12-15): the agent can read those events back verbatim with its recall tool, so a detail you shorten stays reachable.

${SUMMARY_SECTIONS}

<previous_summary>
{previous_summary}
</previous_summary>

<new_events>
{conversation_history}
</new_events>

Write the updated summary now, starting with "## User goal".`;

/** What fills `{previous_summary}` when there is none. */
export const NO_PREVIOUS_SUMMARY = '(none: this is the first summary)';

/**
 * Fills the template in one pass, so text in the transcript that looks like a placeholder is
 * never expanded. A template without `{previous_summary}` still gets the previous summary, at
 * the head of the history: a rolling summary must never lose it.
 */
export function fillPromptTemplate(options: {
  template: string;
  conversationHistory: string;
  previousSummary?: string;
}): string {
  const { template, conversationHistory, previousSummary } = options;
  let history = conversationHistory;
  if (previousSummary !== undefined && !template.includes(PREVIOUS_SUMMARY_PLACEHOLDER)) {
    history = `Summary of the conversation so far:\n${previousSummary}\n\nNew events:\n${conversationHistory}`;
  }
  return template.replace(/\{(conversation_history|previous_summary)\}/g, (placeholder) =>
    placeholder === CONVERSATION_HISTORY_PLACEHOLDER
      ? history
      : (previousSummary ?? NO_PREVIOUS_SUMMARY),
  );
}
