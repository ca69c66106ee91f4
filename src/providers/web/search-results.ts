// A vendor's result rows in the toolset's shape. Vendors name the fields differently (`link` or
// `url`, `content` or `snippet` or `description`, a date under several names), so each type says
// which field is which and this turns them into results the same way for all.
import { str } from './http.js';
import type { WebSearchResult } from './types.js';

/** Which of a row's fields is the title, the address, the snippet and (when the vendor dates results) the date. */
export interface ResultFields {
  title: unknown;
  url: unknown;
  snippet: unknown;
  published?: unknown;
}

/** At most `maxResults` results, every field a string, `published_at` only when the vendor gave a date. */
export function searchResults<Row>(rows: Row[] | undefined, maxResults: number, fields: (row: Row) => ResultFields): WebSearchResult[] {
  return (rows ?? []).slice(0, maxResults).map((row) => {
    const { title, url, snippet, published } = fields(row);
    return { title: str(title), url: str(url), snippet: str(snippet), ...(published ? { published_at: str(published) } : {}) };
  });
}
