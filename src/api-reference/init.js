// Renders both OpenAPI documents served by this service. No default fonts (they come from a CDN), no
// telemetry, no AI agent: the page loads nothing from outside the service.
/* global Scalar */
Scalar.createApiReference('#app', {
  sources: [
    { title: 'Workspace API (v1)', slug: 'v1', url: '/api/v1/openapi.json' },
    { title: 'Support API (1)', slug: 'support', url: '/api/openapi.json' },
  ],
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
});
