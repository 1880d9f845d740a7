/** Commander's collector for a repeatable option (`-c a -c b` → `['a', 'b']`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
