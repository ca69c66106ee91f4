// The words the findings pages use for the API's values.
export const ASSESSMENT_LABELS: Record<string, string> = {
  unreviewed: 'Unreviewed',
  confirmed: 'Confirmed: a real problem',
  not_a_problem: 'Not a problem',
  fixed: 'Fixed',
  wont_fix: 'Won’t fix',
};

export function stateWord(closed: boolean): string {
  return closed ? 'closed' : 'open';
}
