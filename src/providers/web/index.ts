// The ten web provider types (spec: Providers, web: 10 types), registered once.
import { registerProviderType } from '../registry.js';
import { brave } from './brave.js';
import { exa } from './exa.js';
import { fetchType } from './fetch.js';
import { firecrawl } from './firecrawl.js';
import { jina } from './jina.js';
import { perplexity } from './perplexity.js';
import { searxng } from './searxng.js';
import { serpapi } from './serpapi.js';
import { serper } from './serper.js';
import { tavily } from './tavily.js';

for (const type of [tavily, brave, exa, serper, serpapi, firecrawl, jina, perplexity, searxng, fetchType]) registerProviderType(type);

export type { WebFetchRequest, WebOperation, WebOperations, WebPage, WebSearchRequest, WebSearchResult } from './types.js';
export { WebApiError } from './http.js';
