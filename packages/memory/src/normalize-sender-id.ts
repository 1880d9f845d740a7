const ADDRESS_PATTERN = /^0x[0-9a-f]+$/i;

/**
 * The canonical form of a sender id: surrounding whitespace removed and `0x`-prefixed hex
 * addresses lowercased, so `' 0xAbC '` and `'0xabc'` share one conversation. Other ids keep
 * their case (handles and emails may be case-sensitive to the caller).
 */
export function normalizeSenderId(senderId: string): string {
  const trimmed = senderId.trim();
  return ADDRESS_PATTERN.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}
