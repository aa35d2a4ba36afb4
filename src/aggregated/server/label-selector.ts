// Label selectors read as Go's labels.Parse reads them (k8s.io/apimachinery pkg/labels/selector.go: its
// lexer, parser and NewRequirement checks), so that what kube-apiserver refuses is refused here too, and a
// selector it cannot parse drops the name a field selector gave the authorization (request-info.ts).

export type LabelOperator = 'exists' | '!' | '=' | '==' | '!=' | 'in' | 'notin' | '>' | '<';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

type Token = 'error' | 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';
interface Scanned {
  token: Token;
  literal: string;
}

const literalTokens = new Set<string>([')', ',', '!', '==', '=', '>', 'in', '<', '!=', 'notin', '(']);
const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string) => '=!(),><'.includes(ch);

/** Go's Lexer: byte by byte, with a NUL (as the end of the string reads) ending the input. */
function scan(text: string): Scanned[] {
  let pos = 0;
  const read = () => (pos < text.length ? text[pos++]! : '\0');
  const items: Scanned[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === '\0') {
      items.push({ token: 'end', literal: '' });
      return items;
    }
    pos--;
    if (isSpecial(ch)) {
      let buffer = '';
      let last: Scanned | undefined;
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (!isSpecial(c)) {
          pos--;
          break;
        }
        buffer += c;
        if (literalTokens.has(buffer)) last = { token: buffer as Token, literal: buffer };
        else if (last) {
          pos--;
          break;
        }
      }
      items.push(last ?? { token: 'error', literal: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (isSpecial(c) || isWhitespace(c)) {
          pos--;
          break;
        }
        buffer += c;
      }
      items.push({ token: literalTokens.has(buffer) ? (buffer as Token) : 'identifier', literal: buffer });
    }
  }
}

const qualifiedName = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
/** Whether Go's strconv.ParseInt(s, 10, 64) reads `s`. */
export const isInt64 = (s: string) => /^[+-]?[0-9]+$/.test(s) && BigInt(s) >= -(2n ** 63n) && BigInt(s) < 2n ** 63n;

const alphanumeric = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Go's validation.IsQualifiedName: an optional DNS subdomain and "/", then a name of at most 63 characters. */
function keyError(key: string): string | undefined {
  const parts = key.split('/');
  const problem = (() => {
    if (parts.length > 2) return `a qualified name ${alphanumeric}, with an optional DNS subdomain prefix and '/'`;
    const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]!];
    if (prefix !== undefined && (prefix.length > 253 || !dns1123Subdomain.test(prefix)))
      return 'prefix part must be a lowercase RFC 1123 subdomain';
    if (name!.length > 63) return 'name part must be no more than 63 characters';
    if (!qualifiedName.test(name!)) return `name part ${alphanumeric}`;
  })();
  return problem && `invalid label key "${key}": ${problem}`;
}

/** Go's NewRequirement checks: the key, the number of values for the operator, integers for > and <, each value a label value. */
function requirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const keyProblem = keyError(key);
  if (keyProblem) throw new Error(keyProblem);
  if ((operator === 'in' || operator === 'notin') && values.length === 0)
    throw new Error("for 'in', 'notin' operators, values set can't be empty");
  if ((operator === '>' || operator === '<') && (values.length !== 1 || !isInt64(values[0]!)))
    throw new Error("for 'Gt', 'Lt' operators, the value must be an integer");
  for (const value of values)
    if (value.length > 63 || !labelValue.test(value))
      throw new Error(`invalid label value: "${value}": at key: "${key}": a valid label must be an empty string or ${alphanumeric}`);
  return { key, operator, values };
}

/** The requirements of `text`; throws Go's error when kube-apiserver would refuse it. */
export function parseLabelSelector(text: string): LabelRequirement[] {
  const items = scan(text);
  let position = 0;
  // In the values context, "in" and "notin" are identifiers ("value in (in)").
  const asValue = (s: Scanned): Scanned => (s.token === 'in' || s.token === 'notin' ? { token: 'identifier', literal: s.literal } : s);
  const lookahead = () => asValue(items[position]!);
  const consumeValue = () => asValue(items[position++]!);
  const consumeOperator = () => items[position++]!;

  const parseValues = (): string[] => {
    const open = consumeValue();
    if (open.token !== '(') throw new Error(`found '${open.literal}' expected: '('`);
    const first = lookahead();
    if (first.token === ')') {
      consumeValue();
      return [''];
    }
    if (first.token !== 'identifier' && first.token !== ',') throw new Error(`found '${first.literal}', expected: ',', ')' or identifier`);
    const values = new Set<string>();
    for (;;) {
      const item = consumeValue();
      if (item.token === 'identifier') {
        values.add(item.literal);
        const next = lookahead();
        if (next.token === ',') continue;
        if (next.token === ')') break;
        throw new Error(`found '${next.literal}', expected: ',' or ')'`);
      } else if (item.token === ',') {
        if (values.size === 0) values.add('');
        const next = lookahead();
        if (next.token === ')') {
          values.add('');
          break;
        }
        if (next.token === ',') {
          consumeValue();
          values.add('');
        }
      } else throw new Error(`found '${item.literal}', expected: ',', or identifier`);
    }
    consumeValue();
    return [...values];
  };

  const parseRequirement = (): LabelRequirement => {
    let item = consumeValue();
    let operator: LabelOperator | undefined;
    if (item.token === '!') {
      operator = '!';
      item = consumeValue();
    }
    if (item.token !== 'identifier') throw new Error(`found '${item.literal}', expected: identifier`);
    const key = item.literal;
    const keyProblem = keyError(key);
    if (keyProblem) throw new Error(keyProblem);
    const next = lookahead().token;
    if (next === 'end' || next === ',') return requirement(key, operator ?? 'exists', []);
    if (operator === '!') return requirement(key, '!', []);
    const op = consumeOperator();
    if (!['in', 'notin', '=', '==', '!=', '>', '<'].includes(op.token))
      throw new Error(`found '${op.literal}', expected: '=', '!=', '==', 'in', notin'`);
    operator = op.token as LabelOperator;
    if (operator === 'in' || operator === 'notin') return requirement(key, operator, parseValues());
    const value = lookahead();
    if (value.token === 'end' || value.token === ',') return requirement(key, operator, ['']);
    const exact = consumeValue();
    if (exact.token !== 'identifier') throw new Error(`found '${exact.literal}', expected: identifier`);
    return requirement(key, operator, [exact.literal]);
  };

  const requirements: LabelRequirement[] = [];
  for (;;) {
    const next = lookahead();
    if (next.token === 'end') return requirements;
    if (next.token !== 'identifier' && next.token !== '!')
      throw new Error(`found '${next.literal}', expected: !, identifier, or 'end of string'`);
    try {
      requirements.push(parseRequirement());
    } catch (err) {
      throw new Error(`unable to parse requirement: ${(err as Error).message}`);
    }
    const after = consumeValue();
    if (after.token === 'end') return requirements;
    if (after.token !== ',') throw new Error(`found '${after.literal}', expected: ',' or 'end of string'`);
    const following = lookahead();
    if (following.token !== 'identifier' && following.token !== '!')
      throw new Error(`found '${following.literal}', expected: identifier after ','`);
  }
}

/** Whether `labels` meet every requirement, as Go's Requirement.Matches. */
export function matchesLabels(requirements: LabelRequirement[], labels: Record<string, string | undefined>): boolean {
  return requirements.every(({ key, operator, values }) => {
    const value = Object.hasOwn(labels, key) ? labels[key] : undefined;
    const has = value !== undefined;
    switch (operator) {
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'in':
      case '=':
      case '==':
        return has && values.includes(value);
      case 'notin':
      case '!=':
        return !has || !values.includes(value);
      case '>':
      case '<': {
        if (!has || !isInt64(value)) return false;
        const [actual, bound] = [BigInt(value), BigInt(values[0]!)];
        return operator === '>' ? actual > bound : actual < bound;
      }
    }
  });
}
