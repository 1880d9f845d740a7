// FNV-1a 64-bit parameters (offset basis and prime from the published algorithm).
const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

/** Feeds one byte into the running FNV-1a state. */
function mix(hash: bigint, byte: number): bigint {
  return ((hash ^ BigInt(byte)) * PRIME) & MASK_64;
}

/**
 * Hashes the UTF-8 bytes of `text`. Encoding by hand keeps the package free of runtime-specific
 * globals (`TextEncoder` typings, `node:crypto`) while giving the same bytes everywhere.
 */
function fnv1a64(text: string): bigint {
  let hash = OFFSET_BASIS;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) {
      hash = mix(hash, code);
    } else if (code < 0x800) {
      hash = mix(hash, 0xc0 | (code >> 6));
      hash = mix(hash, 0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      hash = mix(hash, 0xe0 | (code >> 12));
      hash = mix(hash, 0x80 | ((code >> 6) & 0x3f));
      hash = mix(hash, 0x80 | (code & 0x3f));
    } else {
      hash = mix(hash, 0xf0 | (code >> 18));
      hash = mix(hash, 0x80 | ((code >> 12) & 0x3f));
      hash = mix(hash, 0x80 | ((code >> 6) & 0x3f));
      hash = mix(hash, 0x80 | (code & 0x3f));
    }
  }
  return hash;
}

/**
 * A short, stable version id for an assembled prompt: 16 hex digits of FNV-1a 64 over its UTF-8
 * bytes. Equal texts always give equal ids on every runtime; record it in trajectories and evals so
 * a result can be traced to the exact prompt that produced it. Not a cryptographic hash.
 *
 * @example
 * promptVersion(buildSystemPrompt({ depth: 0, maxDepth: 2 })); // e.g. '9f1c2a0b7d3e4f51'
 */
export function promptVersion(text: string): string {
  return fnv1a64(text).toString(16).padStart(16, '0');
}
