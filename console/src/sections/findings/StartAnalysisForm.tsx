// Starting a finding analysis: which agent (or the most recently active one), how many of its newest
// traces, which detector presets, optionally one trace or a time window. The analysis runs its
// detectors at once; the page then shows the finished analysis.
import { ConsoleStartFindingAnalysisDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useMutation } from '../../api';
import { Field, Select } from '../../components/ui';
import { FormEnd } from '../../components/Forms';
import { PRESETS, type AgentName, type AnalysisInput } from './documents';
import { useIdempotencyKey } from '../../lib/idempotency';

/** A datetime-local value (the browser's time zone) as an ISO timestamp. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}

export function StartAnalysisForm({ agents }: { agents: AgentName[] }) {
  const navigate = useNavigate();
  const [start, state] = useMutation(ConsoleStartFindingAnalysisDocument);
  const [key, renewKey] = useIdempotencyKey();
  const [presets, setPresets] = useState<string[]>(['execution']);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const input: AnalysisInput = { presets };
    if (text('agentId')) input.agentId = text('agentId');
    if (text('traceId')) input.traceId = text('traceId');
    if (text('maxTraces')) input.maxTraces = Number(text('maxTraces'));
    const after = isoOf(text('startedAfter'));
    const before = isoOf(text('startedBefore'));
    if (after) input.startedAfter = after;
    if (before) input.startedBefore = before;
    const data = await start({ idempotencyKey: key, input });
    if (data) {
      renewKey();
      navigate(`/findings/analyses/${data.startFindingAnalysis.findingAnalysis.id}`);
    }
  }

  function togglePreset(value: string, on: boolean) {
    setPresets((current) => (on ? [...current, value] : current.filter((preset) => preset !== value)));
  }

  return (
    <section className="panel" aria-labelledby="start-analysis-heading">
      <h2 id="start-analysis-heading">Start an analysis</h2>
      <form onSubmit={(event) => void submit(event)} onChange={renewKey}>
        <Select
          label="Agent"
          name="agentId"
          defaultValue=""
          key={agents.length}
          options={[
            { value: '', label: 'The most recently active agent' },
            ...agents.map((agent) => ({ value: agent.id, label: agent.name })),
          ]}
        />
        <div className="filters">
          <Field label="Traces to read at most" name="maxTraces" type="number" min={1} max={100} placeholder="10" />
          <Field label="Started after" name="startedAfter" type="datetime-local" />
          <Field label="Started before" name="startedBefore" type="datetime-local" />
        </div>
        <Field label="Only this trace" name="traceId" hint="32 hexadecimal digits; optional" pattern="[0-9a-f]{32}" />
        <fieldset className="presets">
          <legend>Detectors</legend>
          {PRESETS.map((preset) => (
            <div className="field checkbox" key={preset.value}>
              <input
                id={`preset-${preset.value}`}
                type="checkbox"
                checked={presets.includes(preset.value)}
                onChange={(event) => togglePreset(preset.value, event.target.checked)}
              />
              <label htmlFor={`preset-${preset.value}`}>{preset.label}</label>
            </div>
          ))}
        </fieldset>
        <p className="muted">
          When the workspace has a usable model, the analysis also starts the built-in trace analyst; its findings arrive when its run ends.
        </p>
        <FormEnd error={state.error} errorTitle="Could not start the analysis" busy={state.loading} busyLabel="Analysing…">
          Start analysis
        </FormEnd>
      </form>
    </section>
  );
}
