// Evaluation errors of @bufbuild/cel in the words of cel-go, which the API server runs, for the failures
// our rules can meet: a missing field, and a string that duration() cannot convert (bad or too long).
export function celGoErrorMessage(message: string): string {
  const missing = /^field not found: (.*)$/.exec(message);
  if (missing) return `no such key: ${missing[1]}`;
  if (/^Failed to parse duration: |^duration out of range$/.test(message)) {
    return "type conversion error from 'string' to 'google.protobuf.Duration'";
  }
  return message;
}
