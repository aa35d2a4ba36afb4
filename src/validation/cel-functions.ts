// The CEL functions, operators and macros our rule environment provides (cel-env.ts): the CEL standard
// library and the strings extension, as the API server has them. Codegen refuses a rule that calls
// anything else, so a rule never reaches run time with a function we do not evaluate like Kubernetes.

const operators = [
  '_&&_',
  '_||_',
  '!_',
  '-_',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '_?_:_',
  '_[_]',
  '@in',
  '@not_strictly_false',
];
const macros = ['has', 'all', 'exists', 'exists_one', 'filter', 'map'];
const standard = [
  'size',
  'matches',
  'startsWith',
  'endsWith',
  'contains',
  'duration',
  'timestamp',
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'type',
  'dyn',
];
const stringsExtension = ['charAt', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'replace', 'split', 'substring', 'trim', 'join'];

export const supportedCelFunctions: ReadonlySet<string> = new Set([...operators, ...macros, ...standard, ...stringsExtension]);
