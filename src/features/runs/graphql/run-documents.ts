// The run documents callers send as they are (snake_case, as the REST bodies carry them): a message
// (run input, inbox payloads) and run options. Each is a scalar checked by the services' own check
// while the variables are coerced (src/graphql/document-scalars.ts).
import { documentScalar } from '../../../graphql/document-scalars.js';
import { normalizeRunOptions } from '../../agents/documents/config-schema.js';
import { MessageContentSchema, validateMessage } from '../run-input.js';
import { checkRunMountRequests } from '../../environments/environments.js';

documentScalar('EnvironmentMounts', {
  description:
    'Ready environments a run works in: [{environment_id, name?, working_directory?}], at most 8 (snake_case, as the run view shows them; `name` defaults to `default` for the first, else the environment id, and is unique). Each environment is then looked up in the workspace: one of another workspace is not found, one not ready is a failed precondition.',
  check: checkRunMountRequests,
  field: 'environment_mounts',
});

documentScalar('MessageContent', {
  description:
    'A message: {"content": [part, …]}, 1 to 100 parts, at most 512 KiB: text parts {type: text, text}, media parts {type: image|audio|video, media_type, data (base64)}, asset parts {type: image|file, asset_id}.',
  jsonSchema: MessageContentSchema,
  // Never null here: graphql-js answers a null without asking the scalar.
  check: (value, field) => validateMessage(value, field) ?? { content: [] },
  field: 'input',
});

documentScalar('RunOptionsDocument', {
  description:
    "Run options as one document (snake_case: configuration, labels, max_usage, overrides), checked as a whole against its JSON Schema (overrides: the agent configuration's), which names the member at fault. The typed view of stored options is `RunOptions`.",
  check: normalizeRunOptions,
  field: 'options',
});
