// Direct HTTP fetch: no vendor, the service reads pages itself (see direct-fetch.ts).
import { webType } from './define.js';
import { noCredential } from '../common-schemas.js';
import { directFetch } from './direct-fetch.js';

export const fetchType = webType({
  type: 'fetch',
  title: 'Direct HTTP fetch',
  configurationSchema: {
    type: 'object',
    properties: { user_agent: { type: 'string', minLength: 1, maxLength: 200, description: 'the User-Agent header sent' } },
    additionalProperties: false,
  },
  credentialSchema: noCredential,
  credentialRequired: false,
  endpointFields: [],
  web: { fetch: directFetch },
});
