// The web toolset (`toolsets.web`): `web_search` through the workspace's web provider and
// `web_fetch` through the fetch provider — the configured one, the search provider when its type
// reads pages, or else the service's own direct fetch. Both are server tools. A fetched address must
// pass the run's `allowed_hosts` and the deployment's endpoint policy (every redirect too), pages are
// read up to a byte limit and their text cut at a character limit, and every call has a time limit.
import Type from 'typebox';
import { runOptionsSchema } from '../../features/agents/documents/config-schema.js';
import { describeError } from '../attempt-errors.js';
import { urlRefusal } from '../../lib/host-allowance.js';
import type { ProviderContext } from '../../providers/index.js';
import { directFetch } from '../../providers/web/direct-fetch.js';
import type { WebPage } from '../../providers/web/types.js';
import { usableWebProvider, type UsableWebProvider } from '../../features/tools/web-providers.js';
import { outboundFetch } from '../../features/models/providers.js';
import type { ToolsetConfig } from '../agent-config.js';
import { checkedExecution, toolInputSchema, type RunTool, type ToolPermission, type ToolSource, type ToolSourceContext } from './tool.js';
import { readDocument } from '../../lib/json-documents.js';

export const WEB_SEARCH_TOOL = 'web_search';
export const WEB_FETCH_TOOL = 'web_fetch';

/** Defaults of `toolsets.web.config` (ranges in agentConfigSchema). */
export const WEB_DEFAULTS = { maxResults: 5, maxPageBytes: 2 * 1024 * 1024, maxTextChars: 40_000, timeoutSeconds: 30 } as const;
const MAX_QUERY_CHARS = 400;
const MAX_SNIPPET_CHARS = 1_000;

const SEARCH_SCHEMA = Type.Object({
  query: Type.String({ minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'what to search the web for' }),
  max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'how many results (default set by the agent)' })),
});
const FETCH_SCHEMA = Type.Object({ url: Type.String({ description: 'the http(s) address of the page' }) });

interface WebSettings {
  providerId?: string;
  fetchProviderId?: string;
  maxResults?: number;
  maxPageBytes: number;
  maxTextChars: number;
  timeoutMs: number;
}

function settingsOf(toolset: ToolsetConfig): WebSettings {
  const c = toolset.config ?? {};
  const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    providerId: typeof c.provider_id === 'string' ? c.provider_id : undefined,
    fetchProviderId: typeof c.fetch_provider_id === 'string' ? c.fetch_provider_id : undefined,
    maxResults: num(c.max_results),
    maxPageBytes: num(c.max_page_bytes) ?? WEB_DEFAULTS.maxPageBytes,
    maxTextChars: num(c.max_text_chars) ?? WEB_DEFAULTS.maxTextChars,
    timeoutMs: (num(c.timeout_seconds) ?? WEB_DEFAULTS.timeoutSeconds) * 1000,
  };
}

/** `inherit` (or nothing) is the agent's default for server tools: allow. */
const permissionOf = (permission: string | undefined): ToolPermission =>
  permission === 'ask' || permission === 'deny' ? permission : 'allow';

/** A provider, or why it cannot be used (told to the model when it calls the tool). */
type Resolved = { provider: UsableWebProvider } | { error: string };

async function resolve(context: ToolSourceContext, id: string): Promise<Resolved> {
  try {
    return { provider: await usableWebProvider(context.call, id) };
  } catch (error) {
    return { error: describeError(error) };
  }
}

/** Runs one provider operation under the call's signal and the toolset's time limit. */
async function withinTime<T>(timeoutMs: number, signal: AbortSignal, what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return await work(AbortSignal.any([signal, timeout]));
  } catch (error) {
    if (timeout.aborted && !signal.aborted) throw new Error(`${what} did not answer within ${timeoutMs / 1000} s`, { cause: error });
    throw error;
  }
}

const providerContext = (provider: UsableWebProvider, signal: AbortSignal): ProviderContext => ({
  config: provider.config,
  credential: provider.credential,
  extraHeaders: provider.extraHeaders,
  signal,
  fetch: provider.fetch,
  outbound: provider.outbound,
});

export const webTools: ToolSource = async (context) => {
  const toolset = context.config.toolsets?.web;
  if (!toolset || toolset.enabled === false) return [];
  const settings = settingsOf(toolset);
  const tuning = toolset.tools ?? {};
  const search = settings.providerId ? await resolve(context, settings.providerId) : null;
  const fetchProvider: Resolved | null = settings.fetchProviderId
    ? await resolve(context, settings.fetchProviderId)
    : search && 'provider' in search && search.provider.type.web?.fetch
      ? search
      : null;
  const options = readDocument(runOptionsSchema, context.run.options ?? {}, 'runs.options');
  const rules = { allowedHosts: options.configuration?.allowed_hosts, plainHttp: context.deps.config.allowPlainHttpEndpoints };
  const tools: RunTool[] = [];

  // Searching needs a provider that searches; one that only reads pages offers no web_search.
  const searches = search && ('error' in search || search.provider.type.web?.search);
  if (search && searches && tuning.web_search?.enabled !== false) {
    tools.push({
      name: WEB_SEARCH_TOOL,
      description: 'Search the web. Returns the title, address and a short excerpt of each result.',
      inputSchema: toolInputSchema(SEARCH_SCHEMA),
      permission: permissionOf(tuning.web_search?.permission),
      offered: true,
      execution: checkedExecution(SEARCH_SCHEMA, async (args, call) => {
        if ('error' in search) throw new Error(search.error);
        const { provider } = search;
        const query = args.query.trim();
        if (!query) throw new Error('query must be a non-empty string');
        if (query.length > MAX_QUERY_CHARS) throw new Error(`query must be at most ${MAX_QUERY_CHARS} characters`);
        const wanted = args.max_results ?? settings.maxResults ?? Number(provider.config.max_results ?? WEB_DEFAULTS.maxResults);
        const maxResults = Math.max(1, Math.min(20, Math.floor(wanted) || WEB_DEFAULTS.maxResults));
        const results = await withinTime(settings.timeoutMs, call.signal, `the web provider "${provider.name}"`, (signal) =>
          provider.type.web!.search!(providerContext(provider, signal), { query, maxResults }),
        );
        return {
          query,
          results: results.slice(0, maxResults).map((r) => ({ ...r, snippet: r.snippet.slice(0, MAX_SNIPPET_CHARS) })),
        };
      }),
    });
  }

  if (tuning.web_fetch?.enabled !== false) {
    tools.push({
      name: WEB_FETCH_TOOL,
      description: `Fetch a web page and read it as text (at most ${settings.maxTextChars} characters; longer pages are cut and marked truncated).`,
      inputSchema: toolInputSchema(FETCH_SCHEMA),
      permission: permissionOf(tuning.web_fetch?.permission),
      offered: true,
      execution: checkedExecution(FETCH_SCHEMA, async (args, call) => {
        const url = args.url.trim();
        const checkUrl = (address: string) => {
          const refusal = urlRefusal(address, rules);
          if (refusal) throw new Error(refusal);
        };
        checkUrl(url);
        if (fetchProvider && 'error' in fetchProvider) throw new Error(fetchProvider.error);
        const provider = fetchProvider?.provider;
        if (provider && !provider.type.web?.fetch)
          throw new Error(`the web provider "${provider.name}" (${provider.type.type}) does not fetch pages`);
        const request = { url, maxBytes: settings.maxPageBytes, checkUrl };
        const page: WebPage = await withinTime(
          settings.timeoutMs,
          call.signal,
          provider ? `the web provider "${provider.name}"` : url,
          (signal) =>
            provider
              ? provider.type.web!.fetch!(providerContext(provider, signal), request)
              : directFetch({ config: {}, signal, fetch: outboundFetch(context.deps) }, request),
        );
        const cut = page.text.length > settings.maxTextChars;
        return { ...page, text: cut ? page.text.slice(0, settings.maxTextChars) : page.text, truncated: page.truncated || cut };
      }),
    });
  }
  return tools;
};
