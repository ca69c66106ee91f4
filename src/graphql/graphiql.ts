// GraphiQL for development (GRAPHIQL, on with NODE_ENV=development): the page and every asset it
// needs come from the service itself (@graphql-yoga/render-graphiql inlines them), so it works
// offline and loads nothing from a CDN. The header editor opens with an Authorization header whose
// placeholder the user replaces with a key (e.g. the bootstrap key in DATA_DIR/bootstrap-api-key).
import type { GraphiQLOptions } from 'graphql-yoga';

export const GRAPHIQL_AUTHORIZATION_PLACEHOLDER = 'Bearer <paste an API key, e.g. from .data/bootstrap-api-key>';

export function graphiqlOptions(): GraphiQLOptions {
  return {
    title: 'Workspace Agent Service — GraphiQL',
    headers: JSON.stringify({ Authorization: GRAPHIQL_AUTHORIZATION_PLACEHOLDER }, null, 2),
    defaultEditorToolsVisibility: 'headers',
    defaultQuery:
      '# Put your API key in the Authorization header below (Headers tab), then run:\n{\n  viewer {\n    principalId\n    workspaceId\n    permissions\n  }\n}\n',
  };
}

// The page is ~9 MB (the editor and its workers inlined); it is the same for every request. Its
// module is imported on the first request for the page, not at start: its source and the page's
// text held ~29 MB of every process's heap (a heap snapshot of an idle service, production or
// not), while GraphiQL is off in production and seldom opened in development.
let rendered: { key: string; html: string } | null = null;
export async function renderLocalGraphiQL(options: GraphiQLOptions): Promise<string> {
  const key = JSON.stringify(options);
  if (rendered?.key !== key) {
    const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
    rendered = { key, html: renderGraphiQL(options) };
  }
  return rendered.html;
}
