// `ask_user` (with `user_questions: true`): the model asks the user a question; the run waits
// (`user_question`) and the answer starts the successor run.
import type { ToolSource } from './tool.js';

export const ASK_USER_TOOL = 'ask_user';

export const askUserTool: ToolSource = ({ config }) =>
  config.user_questions
    ? [
        {
          name: ASK_USER_TOOL,
          description:
            'Ask the user a question and wait for the answer. Use it when you cannot continue without information only the user has.',
          inputSchema: {
            type: 'object',
            properties: { question: { type: 'string' }, choices: { type: 'array', items: { type: 'string' } } },
            required: ['question'],
          },
          permission: 'allow',
          namespace: 'user',
          offered: true,
          execution: { kind: 'question' },
        },
      ]
    : [];
