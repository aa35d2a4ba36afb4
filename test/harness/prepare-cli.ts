// `node test/harness/prepare-cli.ts test`: what `npm test` runs first (package.json's pretest).
import { prepareOrExit } from './prepare.ts';

const purpose = process.argv[2];
if (purpose !== 'test' && purpose !== 'dev') {
  console.error('usage: node test/harness/prepare-cli.ts test|dev');
  process.exit(2);
}
prepareOrExit(`npm ${purpose === 'test' ? 'test' : 'run dev'}`, purpose);
