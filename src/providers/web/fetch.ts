// Direct HTTP fetch: no vendor, the service reads pages itself (see direct-fetch.ts).
import Type from 'typebox';
import { webType } from './define.js';
import { NoCredential } from '../common-schemas.js';
import { directFetch } from './direct-fetch.js';

export const fetchType = webType({
  type: 'fetch',
  title: 'Direct HTTP fetch',
  configuration: Type.Object(
    { user_agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the User-Agent header sent' })) },
    { additionalProperties: false },
  ),
  credential: NoCredential,
  credentialRequired: false,
  endpointFields: [],
  web: { fetch: directFetch },
});
