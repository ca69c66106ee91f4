// A fetched page as readable text: HTML through html-to-text (links kept, resolved to absolute addresses,
// scripts, styles, images and navigation left out, no line wrapping), other text types as they are.
import { convert } from 'html-to-text';

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;
const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-ndjson|yaml|x-yaml|toml)\b|application\/[a-z0-9.+-]+\+(json|xml)\b)/i;

export const isHtml = (contentType: string) => HTML_TYPES.test(contentType);
export const isText = (contentType: string) => isHtml(contentType) || TEXT_TYPES.test(contentType);

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));

/** Links as absolute addresses, so the model can fetch them as they are. */
function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).toString();
  } catch {
    return href;
  }
}

export function htmlToText(html: string, baseUrl: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      ...HEADINGS,
      {
        selector: 'a',
        options: { pathRewrite: (href: string) => absolute(href, baseUrl), hideLinkHrefIfSameAsText: true, noAnchorUrl: true },
      },
      { selector: 'img', format: 'skip' },
      { selector: 'nav', format: 'skip' },
      { selector: 'noscript', format: 'skip' },
      { selector: 'svg', format: 'skip' },
      { selector: 'iframe', format: 'skip' },
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  }).trim();
}

/** The page's `<title>`, entities decoded. */
export function htmlTitle(html: string): string | undefined {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html.slice(0, 200_000));
  if (!match) return undefined;
  const title = convert(match[1]!, { wordwrap: false }).replace(/\s+/g, ' ').trim();
  return title || undefined;
}

/** The charset a Content-Type names, if TextDecoder knows it (else UTF-8). */
export function decodeBody(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
