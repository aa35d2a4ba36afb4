// The masked form in which Coder shows a provider key (AIProviderKey.masked), so that the operator can tell
// which key id Coder gave which spec key: coder/coder v2.36.0 aibridge/utils/mask.go MaskSecret, used by
// coderd/database/db2sdk AIProvider. By the key's length in characters (runes): 4 shown at each end from 20,
// 2 from 10, 1 from 5, none below; a key no longer than what would be shown is only "...".
export function coderKeyMask(value: string): string {
  const chars = [...value];
  if (chars.length === 0) return '';
  const shown = chars.length >= 20 ? 4 : chars.length >= 10 ? 2 : chars.length >= 5 ? 1 : 0;
  if (chars.length <= shown * 2) return '...';
  return `${chars.slice(0, shown).join('')}...${chars.slice(chars.length - shown).join('')}`;
}
