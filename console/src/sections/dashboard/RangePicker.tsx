// The time range of a dashboard: four choices as a radio group, kept in the page's address (?range=)
// so a link or a reload shows the same range, and a refresh that moves the range's end to now.
import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { RefreshButton } from '../../components/ui';
import { isRangeKey, RANGES, timeRange, type RangeKey, type TimeRange } from './range';

export function useTimeRange(fallback: RangeKey = '24h'): [TimeRange, (key: RangeKey) => void, () => void] {
  const [params, setParams] = useSearchParams();
  const asked = params.get('range');
  const key: RangeKey = isRangeKey(asked) ? asked : fallback;
  const [refreshed, setRefreshed] = useState(0);
  // `refreshed` is in the list on purpose: a refresh asks for a new end.
  const range = useMemo(() => timeRange(key), [key, refreshed]);
  const choose = (next: RangeKey) =>
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        updated.set('range', next);
        return updated;
      },
      { replace: true },
    );
  return [range, choose, () => setRefreshed((count) => count + 1)];
}

export function RangePicker({ range, onChoose, onRefresh }: { range: TimeRange; onChoose(key: RangeKey): void; onRefresh(): void }) {
  // The choice shows at once: the address changes in a transition that keeps the old range on screen
  // while the new range's data loads, and a radio that stayed unchecked until then would look ignored.
  // Cleared when the range in the address changes (the choice arrived, or the reader went back).
  const [clicked, setClicked] = useState<RangeKey | null>(null);
  useEffect(() => setClicked(null), [range.key]);
  const shown = clicked ?? range.key;
  return (
    <div className="range-picker">
      <fieldset>
        <legend>Time range</legend>
        {RANGES.map((choice) => (
          <label key={choice.key} className={choice.key === shown ? 'chosen' : undefined}>
            <input
              type="radio"
              name="range"
              value={choice.key}
              checked={choice.key === shown}
              onChange={() => {
                setClicked(choice.key);
                onChoose(choice.key);
              }}
            />
            {choice.label}
          </label>
        ))}
      </fieldset>
      <RefreshButton onRefresh={onRefresh} />
    </div>
  );
}
