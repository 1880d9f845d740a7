import type { SeededRandom } from './seeded-random.js';

/**
 * Labels of the support records and the phrases that mark them. A record mentions exactly one
 * phrase, so its label is well defined, but the label itself is never written: a system has to
 * classify the text (the semantic step OOLONG-style tasks test).
 */
export const RECORD_LABELS: Readonly<Record<string, readonly string[]>> = {
  billing: ['invoice', 'refund', 'overcharged', 'payment failed'],
  shipping: ['parcel', 'courier', 'delivery window'],
  technical: ['crashes', 'error code', 'cannot log in'],
  account: ['password reset', 'change my email', 'delete my data'],
};

/** Rare labels the pairs benchmark plants for a few users only. */
export const RARE_LABELS: Readonly<Record<string, readonly string[]>> = {
  security: ['phishing', 'suspicious login', 'two-factor'],
  legal: ['lawyer', 'court order', 'contract dispute'],
};

const TEMPLATES = [
  'Hello, I have a question about the {k} from last week.',
  'Hi team, the {k} thing happened again and I need help.',
  'Good morning. Writing about {k}, please look into it.',
  'Dear support, my issue is {k} and nobody has replied.',
  'Quick note: {k} again. Thanks.',
];

/** One synthetic support record. */
export interface SupportRecord {
  id: number;
  /** `YYYY-MM-DD`, within 2024. */
  date: string;
  user: string;
  label: string;
  text: string;
}

/** The user id format: `u007`. */
export function userId(index: number): string {
  return `u${String(index).padStart(3, '0')}`;
}

/** A record of `label` by `user`, with a seeded date and wording. */
export function makeRecord(
  random: SeededRandom,
  {
    id,
    user,
    label,
    labels,
  }: {
    id: number;
    user: string;
    label: string;
    labels: Readonly<Record<string, readonly string[]>>;
  },
): SupportRecord {
  const phrase = random.pick(labels[label] ?? [label]);
  const month = random.int(1, 12);
  const day = random.int(1, 28);
  const date = `2024-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return { id, date, user, label, text: random.pick(TEMPLATES).replace('{k}', phrase) };
}

/** The record as one context line: `#00042 | 2024-03-11 | u017 | <text>`. */
export function recordLine(record: SupportRecord): string {
  return `#${String(record.id).padStart(5, '0')} | ${record.date} | ${record.user} | ${record.text}`;
}
