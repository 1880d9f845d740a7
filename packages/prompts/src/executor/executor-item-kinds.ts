/** The kinds of items the executor sections hold. */
export type ExecutorItemKind =
  | 'constraint'
  | 'goal'
  | 'pending-action'
  | 'conversation'
  | 'observation'
  | 'episodic'
  | 'semantic'
  | 'budget'
  | 'action';

/** The sections, in prompt order. */
export type ExecutorSectionId = 'role' | 'goals' | 'working-memory' | 'budget' | 'actions' | 'task';

interface KindInfo {
  section: ExecutorSectionId;
  /** Sub-heading inside the section; empty for none. */
  label: string;
  /** Default priority (0–100); lower is dropped first. Also breaks ties between kinds. */
  priority: number;
  /** Which end of the list goes first when trimming: chronological lists lose their oldest items. */
  dropFrom: 'start' | 'end';
}

/**
 * Per-kind placement and trimming rules. Constraints and goals outlive memories; recent
 * conversation outlives older memories; relevance-ordered lists lose their tail first.
 */
export const EXECUTOR_ITEM_KINDS: Readonly<Record<ExecutorItemKind, KindInfo>> = {
  constraint: { section: 'role', label: 'Constraints', priority: 90, dropFrom: 'end' },
  goal: { section: 'goals', label: 'Active goals', priority: 80, dropFrom: 'end' },
  'pending-action': { section: 'goals', label: 'Pending actions', priority: 75, dropFrom: 'end' },
  action: { section: 'actions', label: '', priority: 70, dropFrom: 'end' },
  budget: { section: 'budget', label: '', priority: 65, dropFrom: 'end' },
  conversation: {
    section: 'working-memory',
    label: 'Recent conversation (oldest first)',
    priority: 50,
    dropFrom: 'start',
  },
  observation: { section: 'working-memory', label: 'Observations', priority: 45, dropFrom: 'end' },
  semantic: {
    section: 'working-memory',
    label: 'Relevant semantic memories',
    priority: 40,
    dropFrom: 'end',
  },
  episodic: {
    section: 'working-memory',
    label: 'Relevant episodic memories',
    priority: 35,
    dropFrom: 'end',
  },
};

/** Section titles and the kinds each holds, in display order. */
export const EXECUTOR_SECTIONS: readonly {
  id: ExecutorSectionId;
  title: string;
  kinds: readonly ExecutorItemKind[];
}[] = [
  { id: 'role', title: 'Role and constraints', kinds: ['constraint'] },
  { id: 'goals', title: 'Goals and pending actions', kinds: ['goal', 'pending-action'] },
  {
    id: 'working-memory',
    title: 'Working memory',
    kinds: ['conversation', 'observation', 'episodic', 'semantic'],
  },
  { id: 'budget', title: 'Budget', kinds: ['budget'] },
  { id: 'actions', title: 'Available actions', kinds: ['action'] },
  { id: 'task', title: 'Current task', kinds: [] },
];
