// The reviewer's part of a finding: the assessment, a note and whether it is closed — all the API lets
// a reviewer set. The change carries the version the page showed (If-Match), so a review never
// overwrites one someone else saved meanwhile: the service refuses it and the page says so.
import { ConsoleUpdateFindingDocument } from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useMutation } from '../../api';
import { Checkbox, ErrorNotice, Select, Status, SubmitButton, TextArea } from '../../components/ui';
import { ASSESSMENTS, type FindingDetail } from './documents';
import { ASSESSMENT_LABELS } from './words';

const NOTE_LIMIT = 4000;

export function ReviewForm({ finding, onSaved }: { finding: FindingDetail; onSaved(finding: FindingDetail): void }) {
  const [update, state] = useMutation(ConsoleUpdateFindingDocument);
  const [assessment, setAssessment] = useState(finding.assessment);
  const [note, setNote] = useState(finding.assessmentNote);
  const [closed, setClosed] = useState(finding.closed);
  const [saved, setSaved] = useState<number | null>(null);
  // The version this form last saw: the page's, then each save's answer (a second save needs no reload).
  const [etag, setEtag] = useState(finding.etag);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(null);
    const data = await update({
      id: finding.id,
      ifMatch: etag,
      input: { assessment, assessmentNote: note.trim() ? note : null, closed },
    });
    if (data) {
      setEtag(data.updateFinding.finding.etag);
      setSaved(data.updateFinding.finding.version);
      onSaved(data.updateFinding.finding);
    }
  }

  return (
    <section className="panel" aria-labelledby="finding-review-heading">
      <h2 id="finding-review-heading">Review</h2>
      <form onSubmit={(event) => void submit(event)}>
        <Select
          label="Assessment"
          value={assessment}
          onValue={setAssessment}
          options={ASSESSMENTS.map((value) => ({ value, label: ASSESSMENT_LABELS[value] ?? value }))}
        />
        <TextArea
          label="Assessment note"
          value={note}
          maxLength={NOTE_LIMIT}
          onValue={setNote}
          rows={3}
          hint={`${note.length} of ${NOTE_LIMIT} characters`}
        />
        <Checkbox label="Closed" checked={closed} onChange={setClosed} />
        <p className="muted">
          A closed finding assessed “not a problem” or “won’t fix” stays closed when analyses find it again; otherwise it opens again when
          new runs show it.
        </p>
        <ErrorNotice error={state.error} title="Could not save the review" />
        {saved !== null ? <Status>Review saved (version {saved}).</Status> : null}
        <SubmitButton busy={state.loading} busyLabel="Saving…">
          Save review
        </SubmitButton>
      </form>
    </section>
  );
}
