// The direct fetch: the service itself reads the page over HTTP(S). Redirects are followed by hand
// (at most five) so that every address on the way passes the run's checks, the body is read up to
// the byte limit and no further, and only text is accepted (HTML becomes readable text).
import { WebApiError, readLimited } from './http.js';
import { fetchFailure } from '../../lib/outbound-policy.js';
import { decodeBody, htmlTitle, htmlToText, isHtml, isText } from './page-text.js';
import type { WebFetchRequest, WebPage, WebProviderContext } from './types.js';

const MAX_REDIRECTS = 5;
export const DEFAULT_USER_AGENT = 'workspace-agent-service (web_fetch)';

export async function directFetch(
  ctx: Pick<WebProviderContext<{ user_agent?: string }>, 'config' | 'signal' | 'fetch'>,
  request: WebFetchRequest,
): Promise<WebPage> {
  let url = request.url;
  const userAgent = ctx.config.user_agent || DEFAULT_USER_AGENT;
  for (let hop = 0; ; hop++) {
    request.checkUrl(url);
    let response: Response;
    try {
      response = await ctx.fetch(url, {
        redirect: 'manual',
        signal: ctx.signal,
        headers: { 'user-agent': userAgent, accept: 'text/html, application/xhtml+xml, text/plain;q=0.9, */*;q=0.5' },
      });
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
      throw new WebApiError(`could not fetch ${url}: ${fetchFailure(error)}`);
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel().catch(() => undefined);
      if (hop >= MAX_REDIRECTS) throw new WebApiError(`${request.url} redirects more than ${MAX_REDIRECTS} times`);
      url = new URL(location, url).toString();
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new WebApiError(`${url} answered ${response.status}`, response.status);
    }
    const contentType = response.headers.get('content-type') ?? 'text/plain';
    if (!isText(contentType)) {
      await response.body?.cancel().catch(() => undefined);
      throw new WebApiError(`${url} is ${contentType.split(';')[0]}, not a text page`);
    }
    const { bytes, truncated } = await readLimited(response, request.maxBytes);
    const body = decodeBody(bytes, contentType);
    const html = isHtml(contentType);
    const title = html ? htmlTitle(body) : undefined;
    return {
      url,
      ...(title ? { title } : {}),
      content_type: contentType.split(';')[0]!.trim().toLowerCase(),
      text: html ? htmlToText(body, url) : body,
      truncated,
    };
  }
}
