// The console's label text (console/src/lib/labels.ts): what people type in label fields and filters,
// turned into the maps and selectors the API takes, and back. Pure logic, no browser.
import { describe, expect, it } from 'vitest';
import { LabelsError, formatLabels, labelWords, parseLabelSelectors, parseLabels, readLabels } from '../../console/src/lib/labels.ts';

describe('console labels', () => {
  it('splits selectors on commas and lines, dropping blanks, keeping spaces inside a value', () => {
    expect(parseLabelSelectors('team:core, tier:gold\n\n  stage:first draft  ,')).toEqual(['team:core', 'tier:gold', 'stage:first draft']);
    expect(parseLabelSelectors('   ')).toEqual([]);
  });

  it('reads key=value and key:value entries, on lines or separated by commas', () => {
    expect(parseLabels('team=core\ntier: gold\n\n')).toEqual({ team: 'core', tier: 'gold' });
    expect(parseLabels('team:ops, stage:draft')).toEqual({ team: 'ops', stage: 'draft' });
    // The first separator splits; the rest belongs to the value.
    expect(parseLabels('link=https://example.com/a')).toEqual({ link: 'https://example.com/a' });
    expect(parseLabels('empty=')).toEqual({ empty: '' });
    expect(parseLabels('')).toEqual({});
    // Keys are not judged here: the service names a bad one.
    expect(parseLabels('not a key=1')).toEqual({ 'not a key': '1' });
  });

  it('refuses an entry without a separator, naming it', () => {
    expect(() => parseLabels('team=core\noops')).toThrow(LabelsError);
    expect(() => parseLabels('oops')).toThrow('Labels: "oops" is not key=value');
    expect(() => parseLabels('=value')).toThrow(LabelsError);
    expect(readLabels('oops')).toEqual({ error: 'Labels: "oops" is not key=value' });
    expect(readLabels('a=b')).toEqual({ labels: { a: 'b' } });
  });

  it('writes a map or a label list back as one entry a line, and as short words for a table', () => {
    expect(formatLabels({ team: 'support', tier: 'gold' })).toBe('team=support\ntier=gold');
    expect(formatLabels([{ key: 'team', value: 'support' }], ':')).toBe('team:support');
    expect(formatLabels(null)).toBe('');
    expect(
      labelWords([
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ]),
    ).toBe('a=1, b=2');
    expect(labelWords({ a: '1' })).toBe('a=1');
    expect(labelWords(undefined)).toBe('');
  });

  it('reads back what it writes', () => {
    const labels = { team: 'support', tier: 'gold', note: 'a b c' };
    expect(parseLabels(formatLabels(labels))).toEqual(labels);
    expect(parseLabels(formatLabels(labels, ':'))).toEqual(labels);
  });
});
