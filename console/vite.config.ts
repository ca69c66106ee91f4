// Builds the operator console (console/src, React) into console/dist, which the service serves at `/`.
// Everything the page needs is bundled: no CDN, no web fonts, so it works offline and under a strict
// Content-Security-Policy (script-src 'self').
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // The client package from its TypeScript sources (its package export is the built dist/).
  resolve: {
    alias: { '@workspace-agent-service/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)) },
  },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Not /assets: the API has assets of its own (/api/v1/assets); a distinct folder keeps the two apart.
    assetsDir: 'static',
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // React Router marks its modules "use client" (for server components); meaningless in this bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  // `npm run console:dev`: the page with hot reload, talking to a service on :8080 (npm start).
  server: {
    port: 5173,
    proxy: {
      '/graphql': { target: 'http://127.0.0.1:8080', ws: true },
      '/api': 'http://127.0.0.1:8080',
    },
  },
  logLevel: 'warn',
});
