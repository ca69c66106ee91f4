// How serious a finding is: the closed set the model-free detectors, the analysis agent's output
// spec and the findings service all use. It lives here, below all of them, so the agent's
// definition (src/agents/) can name it without reaching into the services.
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];
