import { describe, expect, it } from 'vitest';
import { withSandbox } from './sandbox-cases.test-helpers.js';

/**
 * Ways model code could get itself called once its block is over, when the scaffold names the
 * types (at the block's end) and the host lists and reads the variables: each plants a hook that
 * records its calls in `calls`. The host reads `calls` as data.
 */
const HOOKS: readonly (readonly [string, string])[] = [
  [
    'a finalizer of cyclic garbage, collected by the automatic gc',
    `import gc
class Cycle:
    def __del__(self):
        calls.append('del')
gc.collect()
gc.set_threshold(1, 1, 1)
junk = Cycle(); junk.me = junk; del junk`,
  ],
  [
    'a trace and a profile function',
    `import sys
listing = {'finish_block', 'list_variables', 'get_variable', '_user_entries', '_json_safe'}
def hook(frame, event, arg):
    if frame.f_code.co_name in listing:
        calls.append(frame.f_code.co_name)
    return None
sys.setprofile(hook)
sys.settrace(hook)`,
  ],
  [
    'a JSON encoder patched in the json module',
    `import json
class Loud(json.JSONEncoder):
    def encode(self, o):
        calls.append('encode')
        return super().encode(o)
    def iterencode(self, o, _one_shot=False):
        calls.append('iterencode')
        return super().iterencode(o, _one_shot)
json.JSONEncoder = Loud
json._default_encoder = Loud()
json.encoder.c_make_encoder = None`,
  ],
  [
    'a type in the types module replaced by one whose metaclass checks subclasses',
    `import types
class Meta(type):
    def __subclasscheck__(cls, other):
        calls.append('subclasscheck')
        return False
    def __instancecheck__(cls, other):
        calls.append('instancecheck')
        return False
class Fake(metaclass=Meta):
    pass
types.ModuleType = Fake
types.MappingProxyType = Fake
types.FunctionType = Fake`,
  ],
  [
    'gc.get_referents replaced',
    `import gc, types
def referents(*args):
    calls.append('get_referents')
    return []
gc.get_referents = referents
view = types.MappingProxyType({'a': 1})`,
  ],
  [
    'an audit hook',
    `import sys, types
def audit(event, args):
    calls.append(event)
try:
    sys.addaudithook(audit)
except Exception:
    pass
view = types.MappingProxyType({'a': 1})`,
  ],
];

describe('variable listing', () => {
  it.each(HOOKS)('runs no model code after the block: %s', async (_label, plant) => {
    await withSandbox({}, async (sandbox) => {
      const made = await sandbox.execute(
        `calls = []\nvalue = {'a': [1, 2]}\n${plant}\nplanted = len(calls)`,
      );
      expect(made.error).toBeNull();
      expect(made.locals).toMatchObject({ value: 'object', calls: 'array' });
      const listed = await sandbox.listVariables();
      expect(listed).toEqual(
        expect.arrayContaining([{ name: 'value', type: 'object', size: '{"a": [1, 2]}'.length }]),
      );
      expect(await sandbox.getVariable('value')).toEqual({ a: [1, 2] });
      const planted = await sandbox.getVariable('planted');
      expect(await sandbox.getVariable('calls')).toHaveLength(planted as number);
    });
  });
});
