// Text from a manifest printed to a terminal: control characters (ESC, BEL, C1) and the bidirectional
// overrides are shown escaped, so a name cannot retitle the terminal, clear it, or reorder what is shown;
// newlines and tabs too, so that each problem stays on one line.
const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(unsafe, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
