/**
 * True when `modelId` matches `glob`, where `*` stands for any run of characters and `?` for one.
 * The whole id must match; matching is case-sensitive, as model ids are.
 */
export function matchesModelGlob(glob: string, modelId: string): boolean {
  let pattern = '';
  for (const char of glob) {
    if (char === '*') pattern += '.*';
    else if (char === '?') pattern += '.';
    else pattern += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`, 's').test(modelId);
}
