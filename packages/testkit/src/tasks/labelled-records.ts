import { seededRandom } from './seeded-random.js';

/** Keywords that mark each label; a record of a label contains one of its keywords. */
export const DEFAULT_LABEL_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  billing: ['invoice', 'refund', 'overcharged'],
  shipping: ['parcel', 'courier', 'tracking number'],
  technical: ['crashes', 'error code', 'cannot log in'],
};

const OPENINGS = ['Hello team,', 'Hi,', 'Good morning.', 'Dear support,', 'Quick question:'];
const CLOSINGS = ['Thanks.', 'Regards.', 'Please advise.', 'Cheers.', 'Waiting for your reply.'];

/** One synthetic support message with its true label. */
export interface LabelledRecord {
  id: number;
  text: string;
  label: string;
}

/** A synthetic aggregation task: classify every record, then count. */
export interface LabelledRecordsTask {
  records: LabelledRecord[];
  /** The records as context: one `id: text` line each. */
  context: string;
  /** How many records carry each label. */
  counts: Record<string, number>;
  /** The question for one label, e.g. "How many records are about billing?". */
  queryFor(label: string): string;
}

export interface LabelledRecordsOptions {
  count: number;
  /** @default 1 */
  seed?: number;
  /** @default DEFAULT_LABEL_KEYWORDS */
  labels?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Builds seeded support messages, each mentioning exactly one keyword of its label, so a
 * rule-based classifier (the `chunkAndAggregate` policy) labels them all correctly.
 *
 * @example
 * const task = labelledRecords({ count: 40, seed: 3 });
 */
export function labelledRecords({
  count,
  seed = 1,
  labels = DEFAULT_LABEL_KEYWORDS,
}: LabelledRecordsOptions): LabelledRecordsTask {
  const random = seededRandom(seed);
  const names = Object.keys(labels);
  const counts: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  const records = Array.from({ length: count }, (_, id) => {
    const label = random.pick(names);
    const keyword = random.pick(labels[label] ?? [label]);
    counts[label] = (counts[label] ?? 0) + 1;
    const text = `${random.pick(OPENINGS)} My ${keyword} issue needs attention (ref ${random.int(1000, 9999)}). ${random.pick(CLOSINGS)}`;
    return { id, text, label };
  });
  return {
    records,
    context: records.map((record) => `${record.id}: ${record.text}`).join('\n'),
    counts,
    queryFor: (label) => `How many records are about ${label}? Answer with the number only.`,
  };
}
